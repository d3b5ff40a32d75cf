package ref

import (
	"math"
	"testing"
)

// f32Div127 is glsl.inc.tmpl's f32_div127 (the Vulkan Q8_1 lane tile's d =
// amax / 127, in integers) for a normal positive a, ported line for line
// with its f32_round: q = 4m + floor(4m / 127) and the remainder as sticky
// bit, one right shift when q reaches 2^26, rounded to nearest even.
func f32Div127(a uint32) uint32 {
	ea := (a >> 23) & 0xFF
	m4 := ((a & 0x7FFFFF) | 0x800000) << 2
	q := m4 + m4/127
	sticky := m4%127 != 0
	e := int(ea) - 7
	if q >= 0x4000000 {
		sticky = sticky || q&1 != 0
		q >>= 1
		e++
	}
	return a&0x80000000 | f32Round(q, e, sticky)
}

// f32Round is glsl.inc.tmpl's f32_round.
func f32Round(q uint32, e int, sticky bool) uint32 {
	if e >= 255 {
		return 0x7F800000
	}
	var m, rem, mid uint32
	if e >= 1 {
		m, rem, mid = q>>2, q&3, 2
	} else {
		s := uint32(min(3-e, 31))
		m, rem, mid = q>>s, q&(1<<s-1), 1<<(s-1)
	}
	if rem > mid || rem == mid && (sticky || m&1 != 0) {
		m++
	}
	if e >= 1 {
		return uint32(e-1)<<23 + m
	}
	return m
}

// TestDiv127 checks f32_div127 against Go's float32 division (IEEE, subnormal
// results included) for every significand at a normal result's exponent,
// and for every significand at each exponent whose quotient is subnormal or
// at the normal boundary (amax below 2^-119), both signs at the ends.
func TestDiv127(t *testing.T) {
	exps := []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 100, 254}
	if testing.Short() {
		exps = []uint32{1, 7, 8, 100}
	}
	for _, ea := range exps {
		bad := 0
		for m := uint32(0); m < 1<<23; m++ {
			a := ea<<23 | m
			want := math.Float32bits(math.Float32frombits(a) / 127)
			if got := f32Div127(a); got != want {
				if bad++; bad <= 3 {
					t.Errorf("amax bits %#08x: f32_div127 %#08x, a / 127 %#08x", a, got, want)
				}
			}
		}
		if bad > 0 {
			t.Errorf("exponent %d: %d of 2^23 significands wrong", ea, bad)
		}
	}
	for _, a := range []uint32{0x80800000, 0xFF7FFFFF, 0x8142FE00} {
		if got, want := f32Div127(a), math.Float32bits(math.Float32frombits(a)/127); got != want {
			t.Errorf("amax bits %#08x: f32_div127 %#08x, a / 127 %#08x", a, got, want)
		}
	}
}
