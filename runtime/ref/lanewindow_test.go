package ref

import (
	"math"
	"math/rand"
	"testing"
)

// The Vulkan Q8_1 lane tile (templates/quant/q8_1.comp.tmpl, q81_lane)
// takes each byte from bits 15..22 of RN(RN(x * inv * 2^15) + bias) and
// redoes the bytes whose T = bits - 0x4B000000 falls near a multiple of 2^15
// with the exact quotient. These tests run that fast path in binary32 (each
// operation rounded by a float32 conversion, so Go fuses nothing) against
// quantizeQ81Block: with inv = 1 / d off by up to 4 ulps (Vulkan's OpFDiv
// may err by 2.5), bias 2^23 + 2^22 + 2^14 + 3 and the window T mod 2^15 <
// 8, every byte outside the window must be the reference's.

const (
	laneBias3  = 1<<23 + 1<<22 + 1<<14 + 3
	laneBias2  = 1<<23 + 1<<22 + 1<<14 + 2
	laneWide   = 0x7FF8 // T mod 2^15 < 8
	laneNarrow = 0x7FFC // T mod 2^15 < 4
)

// laneBlock returns the fast path's bytes, the mask of those near a tie,
// and whether the block takes the fast path at all (amax in [2^-100,
// FLT_MAX]); inv is 1 / d moved by ulps.
func laneBlock(x *[QK8_1]float32, ulps int32, bias float32, window uint32) (q [QK8_1]byte, near uint32, fast bool) {
	var amax float32
	for _, v := range x {
		amax = max(amax, float32(math.Abs(float64(v))))
	}
	if amax < 0x1p-100 || amax > math.MaxFloat32 {
		return q, 0, false
	}
	d := float32(amax / 127)
	inv := math.Float32frombits(uint32(int32(math.Float32bits(float32(1/d))) + ulps))
	inv = float32(inv * 32768)
	for i, v := range x {
		c := float32(v * inv)
		t := math.Float32bits(float32(c + bias))
		if t&window == 0 {
			near |= 1 << i
		}
		q[i] = byte(t>>15) ^ 0x80
	}
	return q, near, true
}

// laneInputs gives random blocks over a wide range of scales; in half of
// them, half the elements sit on an exact tie (q + 0.5) d or a few ulps off
// one, the cases the window exists for.
func laneInputs(r *rand.Rand, x *[QK8_1]float32) {
	scale := float32(math.Ldexp(1, r.Intn(210)-90))
	for i := range x {
		x[i] = float32(r.NormFloat64()) * scale
	}
	if r.Intn(2) == 0 {
		return
	}
	var amax float32
	for _, v := range x {
		amax = max(amax, float32(math.Abs(float64(v))))
	}
	d := float32(amax / 127)
	for i := 1; i < QK8_1; i += 2 {
		tie := float32(float32(r.Intn(254)-127) + 0.5)
		b := int32(math.Float32bits(float32(tie*d))) + int32(r.Intn(7)-3)
		if v := math.Float32frombits(uint32(b)); float32(math.Abs(float64(v))) <= amax {
			x[i] = v
		}
	}
}

// wrongBytes counts fast-path bytes outside the window that differ from the
// reference, over n blocks, and the bytes inside the window.
func wrongBytes(seed int64, n int, ulps int32, bias float32, window uint32) (wrong, nearCount, total int) {
	r := rand.New(rand.NewSource(seed))
	var x [QK8_1]float32
	y := make([]byte, Q81BlockBytes)
	for range n {
		laneInputs(r, &x)
		q, near, fast := laneBlock(&x, ulps, bias, window)
		if !fast {
			continue
		}
		quantizeQ81Block(&x, y)
		for i := range x {
			total++
			if near&(1<<i) != 0 {
				nearCount++
			} else if q[i] != y[4+i] {
				wrong++
			}
		}
	}
	return
}

func TestLaneWindowInvOffByUlps(t *testing.T) {
	n := 1 << 16
	if testing.Short() {
		n = 1 << 12
	}
	for ulps := int32(-4); ulps <= 4; ulps++ {
		wrong, near, total := wrongBytes(int64(ulps)+7, n, ulps, laneBias3, laneWide)
		if wrong != 0 {
			t.Errorf("inv %+d ulps, bias +3, window 8: %d of %d bytes wrong", ulps, wrong, total)
		}
		if near == 0 {
			t.Errorf("inv %+d ulps: no byte near a tie; the inputs miss the case the window is for", ulps)
		}
	}
}

// The narrower window of a correctly rounded inv holds with inv exact and
// fails with inv a few ulps off: the simulation can see a wrong window.
func TestLaneWindowNarrowNeedsExactInv(t *testing.T) {
	n := 1 << 14
	if wrong, _, total := wrongBytes(1, n, 0, laneBias2, laneNarrow); wrong != 0 {
		t.Errorf("correctly rounded inv, bias +2, window 4: %d of %d bytes wrong", wrong, total)
	}
	off := 0
	for _, ulps := range []int32{-4, -3, 3, 4} {
		w, _, _ := wrongBytes(2, n, ulps, laneBias2, laneNarrow)
		off += w
	}
	if off == 0 {
		t.Error("inv 3-4 ulps off with the narrow window gave no wrong byte; the check cannot tell windows apart")
	}
}
