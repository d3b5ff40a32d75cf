package ref

import (
	"math"
	"math/rand/v2"
)

// genCtx is what block generators draw from.
type genCtx struct {
	rng *rand.Rand
	q8k bool   // Q8_K (else Q8_1)
	act string // input element type: f32, f16, bf16
}

// limit is the largest magnitude the input type holds comfortably.
func (g *genCtx) limit() float64 {
	if g.act == "f16" {
		return 60000
	}
	return 3e38
}

// exp draws a power of two in the input type's normal range, from lo to hi
// (clamped to the type).
func (g *genCtx) exp(lo, hi int) float64 {
	if g.act == "f16" {
		lo, hi = max(lo, -14), min(hi, 15)
	}
	return math.Ldexp(1, lo+g.rng.IntN(hi-lo+1))
}

func (g *genCtx) sign() float64 {
	if g.rng.IntN(2) == 0 {
		return -1
	}
	return 1
}

// two distinct positions i < j in a block of n (i == j when n == 1).
func (g *genCtx) pair(n int) (int, int) {
	i, j := g.rng.IntN(n), g.rng.IntN(n)
	if i > j {
		i, j = j, i
	}
	if i == j && n > 1 {
		if j < n-1 {
			j++
		} else {
			i--
		}
	}
	return i, j
}

// ulps moves f by n units in the last place (toward +inf for n > 0).
func ulps(f float32, n int) float32 {
	for ; n > 0; n-- {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	for ; n < 0; n++ {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

// blockPatterns fill one block's elements (fewer than a block in a Q8_1 tail).
// Cases cycle through them from a random start, block by block.
var blockPatterns = []struct {
	name string
	gen  func(g *genCtx, x []float32)
}{
	{"random", func(g *genCtx, x []float32) {
		s := g.exp(-20, 20)
		for i := range x {
			x[i] = float32((2*g.rng.Float64() - 1) * s)
		}
	}},
	{"unit", func(g *genCtx, x []float32) {
		for i := range x {
			x[i] = float32(g.rng.Float64()*1.25 - 0.25)
		}
	}},
	{"wide exponents", func(g *genCtx, x []float32) {
		for i := range x {
			x[i] = float32(g.sign() * (1 + g.rng.Float64()) * g.exp(-40, 40))
		}
	}},
	{"+a before -a", func(g *genCtx, x []float32) { signedPair(g, x, 1) }},
	{"-a before +a", func(g *genCtx, x []float32) { signedPair(g, x, -1) }},
	{"tied maxima", func(g *genCtx, x []float32) {
		a := (1 + g.rng.Float64()) * g.exp(-8, 8)
		for i := range x {
			x[i] = float32((2*g.rng.Float64() - 1) * a / 2)
		}
		for k := 0; k < 5; k++ {
			x[g.rng.IntN(len(x))] = float32(g.sign() * a)
		}
	}},
	{"all zero", func(g *genCtx, x []float32) {
		for i := range x {
			x[i] = 0
			if g.rng.IntN(3) == 0 {
				x[i] = float32(math.Copysign(0, -1))
			}
		}
	}},
	{"single nonzero", func(g *genCtx, x []float32) {
		clear(x)
		x[g.rng.IntN(len(x))] = float32(g.sign() * (1 + g.rng.Float64()) * g.exp(-30, 30))
	}},
	{".5 ties", func(g *genCtx, x []float32) {
		// max = 127 * 2^e: Q8_K iscale = -/+2^-e and Q8_1 d = 2^e exactly, so
		// (k + 0.5) * 2^e scales to exact halves.
		s := g.exp(-6, 6)
		for i := range x {
			x[i] = float32((float64(g.rng.IntN(254)-127) + 0.5) * s)
		}
		x[g.rng.IntN(len(x))] = float32(g.sign() * 127 * s)
	}},
	{"near .5 ties", func(g *genCtx, x []float32) {
		// Values a few ulps around (k + 0.5) / iscale (Q8_K) or (k + 0.5) * d
		// (Q8_1) for a scale that is not a power of two: the product or the
		// quotient lands on or next to a half only when rounded exactly.
		m := float32((1 + g.rng.Float64()) * g.exp(-4, 4))
		iscale, d := -127/m, m/127
		for i := range x {
			t := float32(g.rng.IntN(252)-126) + 0.5
			var v float32
			if g.q8k {
				v = t / iscale
			} else {
				v = t * d
			}
			v = ulps(v, g.rng.IntN(5)-2)
			if float32(math.Abs(float64(v))) >= m {
				v = 0
			}
			x[i] = v
		}
		x[g.rng.IntN(len(x))] = float32(g.sign()) * m
	}},
	{"subnormal", func(g *genCtx, x []float32) {
		for i := range x {
			x[i] = subnormal(g)
		}
		if g.rng.IntN(2) == 0 { // a small normal max makes subnormal products count
			lo := -126
			if g.act == "f16" {
				lo = -14
			}
			x[g.rng.IntN(len(x))] = float32(g.sign() * math.Ldexp(1+g.rng.Float64(), lo+g.rng.IntN(10)))
		}
	}},
	{"tiny max", func(g *genCtx, x []float32) {
		// amax in [3.7e-37, 1.6e-36] (f32/bf16): Q8_K iscale near FLT_MAX and
		// d subnormal; Q8_1 d subnormal.
		m := 3.7e-37 + g.rng.Float64()*1.2e-36
		if g.act == "f16" {
			m = math.Ldexp(1+g.rng.Float64(), -14+g.rng.IntN(4))
		}
		for i := range x {
			if g.rng.IntN(2) == 0 {
				x[i] = subnormal(g)
			} else {
				x[i] = float32((2*g.rng.Float64() - 1) * m)
			}
		}
		x[g.rng.IntN(len(x))] = float32(g.sign() * m)
	}},
	{"huge", func(g *genCtx, x []float32) {
		for i := range x {
			x[i] = float32(g.sign() * (0.25 + 0.75*g.rng.Float64()) * g.limit())
		}
	}},
	{"inf and nan", func(g *genCtx, x []float32) {
		for i := range x {
			switch g.rng.IntN(8) {
			case 0:
				x[i] = float32(math.Inf(1))
			case 1:
				x[i] = float32(math.Inf(-1))
			case 2:
				x[i] = float32(math.NaN())
			default:
				x[i] = float32(2*g.rng.Float64() - 1)
			}
		}
	}},
	{"all nan", func(g *genCtx, x []float32) {
		for i := range x {
			x[i] = float32(math.NaN())
		}
	}},
	{"sum order", func(g *genCtx, x []float32) {
		// 1 + 2^-11 sits halfway between two halves; 2^-24 terms tip it one
		// way or the other depending on the order they are added in.
		clear(x)
		x[0] = 1 + 1.0/2048
		for k := 0; k < 1+g.rng.IntN(4); k++ {
			x[g.rng.IntN(len(x))] = float32(g.sign()) / (1 << 24)
		}
	}},
	{"half overflow", func(g *genCtx, x []float32) {
		// The sum near the half overflow midpoint 65520.
		t := 65520 + float64(g.rng.IntN(5)-2)
		if len(x) > 1 && g.rng.IntN(2) == 0 {
			for i := range x {
				x[i] = float32(t / float64(len(x)))
			}
		} else {
			clear(x)
			x[g.rng.IntN(len(x))] = float32(t)
		}
		if g.rng.IntN(2) == 0 {
			for i := range x {
				x[i] = -x[i]
			}
		}
	}},
}

// signedPair writes small values, then +a (s = 1) or -a (s = -1) at a
// position and its negation at a later one: the first sets max's sign.
func signedPair(g *genCtx, x []float32, s float64) {
	a := (1 + g.rng.Float64()) * g.exp(-10, 10)
	for i := range x {
		x[i] = float32((2*g.rng.Float64() - 1) * a / 2)
	}
	i, j := g.pair(len(x))
	x[i], x[j] = float32(s*a), float32(-s*a)
}

// subnormal draws a subnormal of the input type, either sign.
func subnormal(g *genCtx) float32 {
	switch g.act {
	case "f16":
		return float32(g.sign() * math.Ldexp(float64(1+g.rng.IntN(1023)), -24))
	case "bf16":
		return float32(g.sign() * math.Ldexp(float64(1+g.rng.IntN(127)), -133))
	}
	return float32(g.sign() * math.Ldexp(float64(1+g.rng.IntN(1<<23-1)), -149))
}
