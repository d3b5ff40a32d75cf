package ref

import (
	"fmt"
	"math"
)

// Gemv computes Y[t][n] = scale[n] * sum_k X[t][k]*W[n][k] with W row-major
// N x K and X row-major T x K, returning Y row-major T x N. The inputs are
// already-decoded weights and activations; scale is nil (no scaling) or one
// float per output row (fp8 weights). Products and sums are float64 so the
// reference error is far below any float32 kernel's; the scale multiplies the
// finished float64 dot product. Shape mismatches are programming errors and
// panic.
func Gemv(w, x, scale []float32, T, N, K int) []float64 {
	if T < 0 || N < 0 || K < 0 {
		panic(fmt.Sprintf("ref.Gemv: negative shape T=%d N=%d K=%d", T, N, K))
	}
	if len(w) != N*K || len(x) != T*K {
		panic(fmt.Sprintf("ref.Gemv: len(w)=%d want N*K=%d, len(x)=%d want T*K=%d", len(w), N*K, len(x), T*K))
	}
	if scale != nil && len(scale) != N {
		panic(fmt.Sprintf("ref.Gemv: len(scale)=%d want N=%d", len(scale), N))
	}
	y := make([]float64, T*N)
	for t := 0; t < T; t++ {
		xr := x[t*K : (t+1)*K]
		for n := 0; n < N; n++ {
			wr := w[n*K : (n+1)*K]
			var acc float64
			for k, wv := range wr {
				// The product of two float32s is exact in float64, so a fused
				// multiply-add (allowed on some GOARCHes) gives the same sum.
				acc += float64(xr[k]) * float64(wv)
			}
			if scale != nil {
				acc *= float64(scale[n])
			}
			y[t*N+n] = acc
		}
	}
	return y
}

// GemvAbs is Gemv of the absolute values: |scale[n]| * sum_k |X[t][k]*W[n][k]|,
// the magnitude a float32 dot product's rounding error is proportional to
// (|error| <= gamma_K * GemvAbs). Checks normalise by it so that an output
// that cancels to near zero is not held to a relative bound no summation
// order could meet.
func GemvAbs(w, x, scale []float32, T, N, K int) []float64 {
	abs := func(v []float32) []float32 {
		if v == nil {
			return nil
		}
		a := make([]float32, len(v))
		for i, f := range v {
			a[i] = float32(math.Abs(float64(f)))
		}
		return a
	}
	return Gemv(abs(w), abs(x), abs(scale), T, N, K)
}

// RelL2Mag returns ||got-want|| / ||mag||: RelL2 with the error measured
// against mag (GemvAbs) instead of want. Non-finite got gives +Inf; an
// all-zero mag gives the absolute norm.
func RelL2Mag(got []float32, want, mag []float64) float64 {
	if len(got) != len(want) || len(mag) != len(want) {
		panic(fmt.Sprintf("ref.RelL2Mag: len(got)=%d len(want)=%d len(mag)=%d", len(got), len(want), len(mag)))
	}
	var num, den float64
	for i, g := range got {
		gf := float64(g)
		if math.IsNaN(gf) || math.IsInf(gf, 0) {
			return math.Inf(1)
		}
		d := gf - want[i]
		num += d * d
		den += mag[i] * mag[i]
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num) / math.Sqrt(den)
}

// GemvF32 is Gemv for float32 weights without a scale.
func GemvF32(w, x []float32, T, N, K int) []float64 {
	return Gemv(w, x, nil, T, N, K)
}

// RelL2 returns ||got-want|| / ||want|| (Euclidean norms in float64). Any
// non-finite value in got gives +Inf, so a NaN can never pass a tolerance
// check. When want is all zeros the absolute norm ||got-want|| is returned
// instead, to avoid dividing by zero. Differing lengths panic.
func RelL2(got []float32, want []float64) float64 {
	if len(got) != len(want) {
		panic(fmt.Sprintf("ref.RelL2: len(got)=%d len(want)=%d", len(got), len(want)))
	}
	return RelL2Mag(got, want, want)
}

// FirstMismatch returns the first index i where got[i] is not finite or
// |got[i]-want[i]| > atol + rtol*|want[i]|, or -1 if every element is within
// tolerance. It is meant for diagnostics after RelL2 fails. Differing
// lengths panic.
func FirstMismatch(got []float32, want []float64, atol, rtol float64) int {
	if len(got) != len(want) {
		panic(fmt.Sprintf("ref.FirstMismatch: len(got)=%d len(want)=%d", len(got), len(want)))
	}
	for i, g := range got {
		gf := float64(g)
		if math.IsNaN(gf) || math.IsInf(gf, 0) || math.Abs(gf-want[i]) > atol+rtol*math.Abs(want[i]) {
			return i
		}
	}
	return -1
}

// FirstByteMismatch returns the first index where got and want differ, -1 if
// they are identical; a length difference counts as a mismatch at the end of
// the shorter slice. Used for byte-exact quantization checks.
func FirstByteMismatch(got, want []byte) int {
	n := min(len(got), len(want))
	for i := 0; i < n; i++ {
		if got[i] != want[i] {
			return i
		}
	}
	if len(got) != len(want) {
		return n
	}
	return -1
}
