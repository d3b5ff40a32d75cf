package ref

import (
	"math"
	"testing"
)

// A cancelling dot product: tiny |y|, large sum |x*w|. Relative to y the
// float32 result is 20% off; relative to the magnitudes it is 1e-8.
func TestRelL2MagCancellation(t *testing.T) {
	w := []float32{1, -1}
	x := []float32{1.0000001, 1}
	want := Gemv(w, x, nil, 1, 1, 2)
	mag := GemvAbs(w, x, nil, 1, 1, 2)
	if mag[0] < 2 || mag[0] > 2.000001 {
		t.Fatalf("GemvAbs = %v, want about 2", mag)
	}
	got := []float32{float32(want[0] * 1.2)}
	if r := RelL2(got, want); r < 0.19 {
		t.Fatalf("RelL2 = %g, want about 0.2", r)
	}
	if r := RelL2Mag(got, want, mag); r > 1e-7 {
		t.Fatalf("RelL2Mag = %g, want < 1e-7", r)
	}
	if r := RelL2Mag([]float32{float32(math.NaN())}, want, mag); !math.IsInf(r, 1) {
		t.Fatalf("RelL2Mag(NaN) = %g, want +Inf", r)
	}
	// Scales enter by magnitude.
	if m := GemvAbs(w, x, []float32{-3}, 1, 1, 2); m[0] < 6 || m[0] > 6.00001 {
		t.Fatalf("GemvAbs with scale -3 = %v, want about 6", m)
	}
}
