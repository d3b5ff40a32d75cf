package ref

import (
	"math"
	"testing"
)

func TestGemvHand(t *testing.T) {
	// W = [[1,2],[3,4],[5,6]] (N=3, K=2); X = [[1,1],[0.5,-1]] (T=2).
	w := []float32{1, 2, 3, 4, 5, 6}
	x := []float32{1, 1, 0.5, -1}
	want := []float64{3, 7, 11, -1.5, -2.5, -3.5}
	got := GemvF32(w, x, 2, 3, 2)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("GemvF32[%d] = %v, want %v (all %v)", i, got[i], want[i], got)
		}
	}
	// Per-row scale [2, 0.5, -1] multiplies column n of every row t.
	wantS := []float64{6, 3.5, -11, -3, -1.25, 3.5}
	gotS := Gemv(w, x, []float32{2, 0.5, -1}, 2, 3, 2)
	for i := range wantS {
		if gotS[i] != wantS[i] {
			t.Fatalf("Gemv scaled[%d] = %v, want %v", i, gotS[i], wantS[i])
		}
	}
}

func TestGemvFP8(t *testing.T) {
	// E4M3 rows: 0x38=1, 0x40=2, 0x3c=1.5, 0xb8=-1, 0x01=2^-9, 0x7e=448.
	wb := []byte{0x38, 0x40, 0x3c, 0xb8, 0x01, 0x7e}
	w := DecodeE4M3(wb) // N=2, K=3: [1,2,1.5], [-1,2^-9,448]
	x := []float32{2, -1, 4}
	got := Gemv(w, x, []float32{0.25, 2}, 1, 2, 3)
	want := []float64{(2 - 2 + 6) * 0.25, (-2 - 1.0/512 + 1792) * 2}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fp8 gemv[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestGemvFloat64Accumulation(t *testing.T) {
	// In float32, 2^24 + 1 - 2^24 sums to 0; the float64 reference keeps the 1.
	x := []float32{1 << 24, 1, -(1 << 24)}
	w := []float32{1, 1, 1}
	if got := GemvF32(w, x, 1, 1, 3); got[0] != 1 {
		t.Fatalf("got %v, want 1", got[0])
	}
}

func TestGemvEmptyAndPanics(t *testing.T) {
	if got := GemvF32(nil, nil, 0, 0, 0); len(got) != 0 {
		t.Fatalf("empty gemv = %v", got)
	}
	if got := GemvF32(nil, nil, 2, 3, 0); len(got) != 6 || got[5] != 0 {
		t.Fatalf("K=0 gemv = %v", got)
	}
	mustPanic(t, "len(w)", func() { GemvF32(make([]float32, 5), make([]float32, 2), 1, 3, 2) })
	mustPanic(t, "len(x)", func() { GemvF32(make([]float32, 6), make([]float32, 3), 1, 3, 2) })
	mustPanic(t, "len(scale)", func() { Gemv(make([]float32, 6), make([]float32, 2), []float32{1}, 1, 3, 2) })
	mustPanic(t, "negative", func() { GemvF32(nil, nil, -1, 0, 0) })
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	f()
}

func TestRelL2(t *testing.T) {
	if r := RelL2([]float32{1, 2}, []float64{1, 2}); r != 0 {
		t.Errorf("exact: %v", r)
	}
	// ||(3,4)-(0,5)|| / ||(0,5)|| = sqrt(9+1)/5.
	if r, want := RelL2([]float32{3, 4}, []float64{0, 5}), math.Sqrt(10)/5; math.Abs(r-want) > 1e-15 {
		t.Errorf("got %v, want %v", r, want)
	}
	// want all zero: absolute norm.
	if r := RelL2([]float32{3, -4}, []float64{0, 0}); r != 5 {
		t.Errorf("zero want: %v, want 5", r)
	}
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		if r := RelL2([]float32{1, bad}, []float64{1, 1}); !math.IsInf(r, 1) {
			t.Errorf("non-finite got %v: %v, want +Inf", bad, r)
		}
		if r := RelL2([]float32{bad}, []float64{0}); !math.IsInf(r, 1) {
			t.Errorf("non-finite got %v with zero want: %v, want +Inf", bad, r)
		}
	}
	if r := RelL2(nil, nil); r != 0 {
		t.Errorf("empty: %v", r)
	}
	mustPanic(t, "RelL2 lengths", func() { RelL2([]float32{1}, nil) })
}

func TestFirstMismatch(t *testing.T) {
	want := []float64{1, 100, -3}
	if i := FirstMismatch([]float32{1, 100, -3}, want, 0, 0); i != -1 {
		t.Errorf("exact: %d", i)
	}
	if i := FirstMismatch([]float32{1.05, 101, -3}, want, 0.1, 0.01); i != -1 {
		t.Errorf("within tol: %d", i)
	}
	if i := FirstMismatch([]float32{1, 102, -3.5}, want, 0.1, 0.01); i != 1 {
		t.Errorf("got %d, want 1", i)
	}
	if i := FirstMismatch([]float32{1, 100, float32(math.NaN())}, want, 1e9, 1e9); i != 2 {
		t.Errorf("NaN: got %d, want 2", i)
	}
	if i := FirstByteMismatch([]byte{1, 2, 3}, []byte{1, 2, 3}); i != -1 {
		t.Errorf("bytes equal: %d", i)
	}
	if i := FirstByteMismatch([]byte{1, 2, 3}, []byte{1, 9, 3}); i != 1 {
		t.Errorf("bytes: %d", i)
	}
	if i := FirstByteMismatch([]byte{1, 2}, []byte{1, 2, 3}); i != 2 {
		t.Errorf("bytes short: %d", i)
	}
}
