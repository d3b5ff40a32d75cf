package ref

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kgen-dev/kgen/runtime/internal/golden"
)

func TestGolden(t *testing.T) {
	cases, err := golden.Read("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		var got []byte
		switch c.Kind {
		case "q8k":
			var err error
			if got, err = QuantizeQ8K(c.X); err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
		case "q81":
			got = QuantizeQ8_1(c.X, len(c.X))
		default:
			t.Fatalf("%s: unknown kind %q", c.Name, c.Kind)
		}
		if i := FirstByteMismatch(got, c.Want); i >= 0 {
			t.Errorf("%s (golden.txt:%d): first mismatch at byte %d (len got %d, want %d)\n got % x\nwant % x",
				c.Name, c.Line, i, len(got), len(c.Want), window(got, i), window(c.Want, i))
			continue
		}
		n++
	}
	t.Logf("%d golden cases byte-identical", n)
}

func window(b []byte, i int) []byte {
	lo, hi := max(0, i-4), min(len(b), i+12)
	if lo > hi {
		return nil
	}
	return b[lo:hi]
}

// --- Q8_K properties ---

type q8kBlock struct {
	d     float32
	qs    [QK_K]int8
	bsums [16]int16
}

func parseQ8K(b []byte) []q8kBlock {
	out := make([]q8kBlock, len(b)/Q8KBlockBytes)
	for i := range out {
		y := b[i*Q8KBlockBytes:]
		out[i].d = math.Float32frombits(binary.LittleEndian.Uint32(y))
		for j := range out[i].qs {
			out[i].qs[j] = int8(y[4+j])
		}
		for g := range out[i].bsums {
			out[i].bsums[g] = int16(binary.LittleEndian.Uint16(y[4+QK_K+2*g:]))
		}
	}
	return out
}

func q8k(t *testing.T, x []float32) q8kBlock {
	t.Helper()
	b, err := QuantizeQ8K(x)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != Q8KBlockBytes {
		t.Fatalf("len %d", len(b))
	}
	return parseQ8K(b)[0]
}

func TestQ8KLengths(t *testing.T) {
	for _, n := range []int{1, 255, 257, 300} {
		if _, err := QuantizeQ8K(make([]float32, n)); err == nil {
			t.Errorf("len %d: no error", n)
		}
	}
	for _, n := range []int{0, 256, 1024} {
		b, err := QuantizeQ8K(make([]float32, n))
		if err != nil || len(b) != n/QK_K*Q8KBlockBytes {
			t.Errorf("len %d: %d bytes, err %v", n, len(b), err)
		}
	}
}

// TestQ8KRandom checks normal blocks against an independent formulation:
// math.RoundToEven of the float32 product instead of the bit trick, plus
// bsums and dequantization error.
func TestQ8KRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const blocks = 20000
	x := make([]float32, blocks*QK_K)
	for b := 0; b < blocks; b++ {
		scale := math.Ldexp(1, rng.IntN(200)-100)
		for j := 0; j < QK_K; j++ {
			v := float32(rng.NormFloat64() * scale)
			switch rng.IntN(50) {
			case 0:
				v = 0
			case 1: // exact .5 products are likely when max is a power of 2 times 127
				v = float32(float64(rng.IntN(255)-127) / 2 * scale)
			}
			x[b*QK_K+j] = v
		}
	}
	out, err := QuantizeQ8K(x)
	if err != nil {
		t.Fatal(err)
	}
	for b, blk := range parseQ8K(out) {
		xs := x[b*QK_K : (b+1)*QK_K]
		var mx float32
		for _, v := range xs {
			if math.Abs(float64(v)) > math.Abs(float64(mx)) {
				mx = v
			}
		}
		iscale := -127 / mx
		if blk.d != 1/iscale {
			t.Fatalf("block %d: d %v want %v", b, blk.d, 1/iscale)
		}
		for j, v := range xs {
			p := float32(iscale * v)
			want := int8(min(127, math.RoundToEven(float64(p))))
			if blk.qs[j] != want {
				t.Fatalf("block %d j %d: qs %d want %d (x %v iscale %v)", b, j, blk.qs[j], want, v, iscale)
			}
			if blk.qs[j] < -127 {
				t.Fatalf("block %d j %d: qs -128", b, j)
			}
			// |d|/2 plus slack: the float32 product can round onto a .5 tie.
			if e := math.Abs(float64(blk.d)*float64(blk.qs[j]) - float64(v)); e > math.Abs(float64(blk.d))*(0.5+1e-5) {
				t.Fatalf("block %d j %d: dequant error %g > |d|/2 (d %g x %g q %d)", b, j, e, blk.d, v, blk.qs[j])
			}
		}
		for g := 0; g < 16; g++ {
			var s int
			for _, q := range blk.qs[16*g : 16*g+16] {
				s += int(q)
			}
			if int(blk.bsums[g]) != s {
				t.Fatalf("block %d: bsums[%d] %d want %d", b, g, blk.bsums[g], s)
			}
		}
	}
	t.Logf("%d random Q8_K blocks checked", blocks)
}

func TestQ8KTieOrder(t *testing.T) {
	for _, a := range []float32{1, 3.25, 1e-20, 1e30, math.MaxFloat32, 0x1p-121} {
		for _, pos := range [][2]int{{0, 1}, {7, 200}, {254, 255}} {
			x := make([]float32, QK_K)
			x[pos[0]], x[pos[1]] = a, -a // +a first
			b := q8k(t, x)
			if b.d >= 0 || b.qs[pos[0]] != -127 || b.qs[pos[1]] != 127 {
				t.Errorf("+a first (a=%v, %v): d %v qs %d %d", a, pos, b.d, b.qs[pos[0]], b.qs[pos[1]])
			}
			x[pos[0]], x[pos[1]] = -a, a // -a first
			b = q8k(t, x)
			if b.d <= 0 || b.qs[pos[0]] != -127 || b.qs[pos[1]] != 127 {
				t.Errorf("-a first (a=%v, %v): d %v qs %d %d", a, pos, b.d, b.qs[pos[0]], b.qs[pos[1]])
			}
		}
	}
}

func TestQ8KSingleNonzero(t *testing.T) {
	for _, a := range []float32{1, -1, 0.1, -7e-12, 3e38, 0x1p-121} {
		for _, j := range []int{0, 17, 255} {
			x := make([]float32, QK_K)
			x[j] = a
			b := q8k(t, x)
			if b.qs[j] != -127 || b.d != 1/(-127/a) {
				t.Errorf("a=%v j=%d: qs %d d %v", a, j, b.qs[j], b.d)
			}
			if b.bsums[j/16] != -127 {
				t.Errorf("a=%v j=%d: bsums %d", a, j, b.bsums[j/16])
			}
			for k, q := range b.qs {
				if k != j && q != 0 {
					t.Errorf("a=%v j=%d: qs[%d]=%d", a, j, k, q)
				}
			}
		}
	}
}

func TestQ8KHalfBoundaries(t *testing.T) {
	// max = 127 makes iscale = -1, so qs = RoundToEven(-x) exactly.
	x := make([]float32, QK_K)
	x[0] = 127
	for j := 1; j < QK_K; j++ {
		x[j] = float32(j%254-127) + 0.5 // -126.5 .. 126.5
	}
	b := q8k(t, x)
	for j := 1; j < QK_K; j++ {
		if want := int8(math.RoundToEven(float64(-x[j]))); b.qs[j] != want {
			t.Errorf("x=%v: qs %d want %d", x[j], b.qs[j], want)
		}
	}
}

func TestQ8KDegenerate(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	// All-denormal or tiny blocks: iscale = -+Inf, every qs 0, d = -+0.
	for _, c := range []struct {
		x0     float32
		dSign  bool // signbit of d
		others float32
	}{
		{0x1p-149, true, 0},
		{-0x1p-149, false, 0x1p-149 / 2},
		{0x1p-122, true, -0x1p-130},
		{-0x1p-126, false, negZero},
	} {
		x := make([]float32, QK_K)
		for j := range x {
			x[j] = c.others
		}
		x[5] = c.x0
		b := q8k(t, x)
		if b.d != 0 || math.Signbit(float64(b.d)) != c.dSign {
			t.Errorf("x0=%v: d %v", c.x0, b.d)
		}
		for j, q := range b.qs {
			if q != 0 {
				t.Errorf("x0=%v: qs[%d]=%d", c.x0, j, q)
			}
		}
	}
	// Just above the threshold (2^-121 > 127/FLT_MAX) the block is normal.
	x := make([]float32, QK_K)
	x[0] = 0x1p-121
	if b := q8k(t, x); b.qs[0] != -127 || math.IsInf(float64(1/b.d), 0) {
		t.Errorf("2^-121: qs %d d %v", b.qs[0], b.d)
	}
	// All-zero blocks, with either zero sign.
	for _, z := range []float32{0, negZero} {
		x := make([]float32, QK_K)
		for j := range x {
			x[j] = z
		}
		out, _ := QuantizeQ8K(x)
		for i, v := range out {
			if v != 0 {
				t.Fatalf("zero block (%v): byte %d = %#x", z, i, v)
			}
		}
	}
	// NaN inputs: never the max; their products are NaN -> qs 0.
	x = make([]float32, QK_K)
	x[0] = float32(math.NaN())
	x[1] = math.Float32frombits(0x7fc000ab) // payload must not leak into qs
	x[2] = 2
	x[3] = 1
	b := q8k(t, x)
	if b.qs[0] != 0 || b.qs[1] != 0 || b.qs[2] != -127 || b.qs[3] != -64 || b.d != 1/(-127.0/2) {
		t.Errorf("NaN block: d %v qs %v", b.d, b.qs[:4])
	}
	// All-NaN block: amax stays 0 -> zero block.
	for j := range x {
		x[j] = float32(math.NaN())
	}
	if b := q8k(t, x); b.d != 0 || math.Signbit(float64(b.d)) {
		t.Errorf("all-NaN block: d %v", b.d)
	}
	// Huge magnitudes stay ordinary: iscale = -127/MaxFloat32 is a normal float.
	x = make([]float32, QK_K)
	x[0], x[1], x[2] = math.MaxFloat32, -math.MaxFloat32, math.MaxFloat32/254
	b = q8k(t, x)
	if b.qs[0] != -127 || b.qs[1] != 127 || b.qs[2] != 0 && b.qs[2] != -1 || b.d >= 0 || math.IsInf(float64(b.d), 0) {
		t.Errorf("huge block: d %v qs %v", b.d, b.qs[:3])
	}
}

func TestNearestInt(t *testing.T) {
	cases := []struct {
		f    float32
		want int32
	}{
		{0, 0}, {float32(math.Copysign(0, -1)), 0}, {0.5, 0}, {1.5, 2}, {2.5, 2}, {-0.5, 0},
		{-1.5, -2}, {127.5, 128}, {-127.5, -128}, {0.49999997, 0}, {0.50000006, 1},
		{4194303, 4194303}, {-4194303, -4194303},
		{float32(math.Inf(1)), -4194304}, {float32(math.Inf(-1)), -4194304},
		{float32(math.NaN()), 0},
	}
	for _, c := range cases {
		if got := nearestInt(c.f); got != c.want {
			t.Errorf("nearestInt(%v) = %d, want %d", c.f, got, c.want)
		}
	}
}

// --- Q8_1 properties ---

type q81Block struct {
	d, s uint16
	qs   [QK8_1]int8
}

func parseQ81(b []byte) []q81Block {
	out := make([]q81Block, len(b)/Q81BlockBytes)
	for i := range out {
		y := b[i*Q81BlockBytes:]
		out[i].d = binary.LittleEndian.Uint16(y)
		out[i].s = binary.LittleEndian.Uint16(y[2:])
		for j := range out[i].qs {
			out[i].qs[j] = int8(y[4+j])
		}
	}
	return out
}

// butterflyRec is an independent (recursive) statement of the xor-butterfly:
// lane i after level L is lane i plus lane i^m_L, both after level L-1.
func butterflyRec(x []float32, lane, level int) float32 {
	if level == 0 {
		return x[lane]
	}
	m := 32 >> level // level 1 pairs with lane^16, ..., level 5 with lane^1
	return butterflyRec(x, lane, level-1) + butterflyRec(x, lane^m, level-1)
}

func TestQ81Random(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const rows = 3000
	for r := 0; r < rows; r++ {
		K := 1 + rng.IntN(300)
		scale := math.Ldexp(1, rng.IntN(60)-40)
		x := make([]float32, K+5)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * scale)
			if rng.IntN(40) == 0 {
				x[i] = float32(float64(rng.IntN(255)-127) / 2 * scale) // ties
			}
		}
		got := QuantizeQ8_1(x, K)
		nb := (K + 31) / 32
		if len(got) != nb*Q81BlockBytes {
			t.Fatalf("K=%d: %d bytes", K, len(got))
		}
		// Entries past K are ignored; zero padding is equivalent.
		padded := make([]float32, nb*32)
		copy(padded, x[:K])
		if i := FirstByteMismatch(got, QuantizeQ8_1(padded, len(padded))); i >= 0 {
			t.Fatalf("K=%d: padding differs at byte %d", K, i)
		}
		for b, blk := range parseQ81(got) {
			xs := padded[b*32 : (b+1)*32]
			var amax float32
			for _, v := range xs {
				amax = max(amax, float32(math.Abs(float64(v))))
			}
			d := amax / 127
			if blk.d != F32ToF16(d) {
				t.Fatalf("K=%d b=%d: d %#x want %#x", K, b, blk.d, F32ToF16(d))
			}
			for lane := 0; lane < 32; lane++ {
				if s := butterflyRec(xs, lane, 5); lane == 0 && blk.s != F32ToF16(s) {
					t.Fatalf("K=%d b=%d: s %#x want %#x", K, b, blk.s, F32ToF16(s))
				} else if math.Float32bits(s) != math.Float32bits(butterflyRec(xs, 0, 5)) {
					t.Fatalf("K=%d b=%d: lane %d sum differs from lane 0", K, b, lane)
				}
			}
			for j, v := range xs {
				q := float64(blk.qs[j])
				// Independent rounding: half away from zero by hand.
				qf := float64(v / d)
				want := math.Floor(math.Abs(qf) + 0.5)
				if qf < 0 {
					want = -want
				}
				if amax == 0 {
					want = 0
				}
				if q != want || math.Abs(q) > 127 {
					t.Fatalf("K=%d b=%d j=%d: q %v want %v", K, b, j, q, want)
				}
				// d/2 plus slack: the float32 quotient can round onto a .5 tie.
				if e := math.Abs(q*float64(d) - float64(v)); e > float64(d)*(0.5+1e-5) {
					t.Fatalf("K=%d b=%d j=%d: dequant error %g (d %g x %g q %v)", K, b, j, e, d, v, q)
				}
			}
		}
	}
	t.Logf("%d random Q8_1 rows checked", rows)
}

func TestQ81Edges(t *testing.T) {
	one := func(x []float32) q81Block {
		t.Helper()
		b := QuantizeQ8_1(x, len(x))
		if len(b) != Q81BlockBytes {
			t.Fatalf("len %d", len(b))
		}
		return parseQ81(b)[0]
	}
	// roundf: half away from zero, both signs.
	x := make([]float32, 32)
	x[0] = 127
	copy(x[1:], []float32{0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 126.5, -126.5, 0.49999997})
	b := one(x)
	want := []int8{127, 1, -1, 2, -2, 3, -3, 127, -127, 0}
	for i, w := range want {
		if b.qs[i] != w {
			t.Errorf("roundf lane %d (x=%v): %d want %d", i, x[i], b.qs[i], w)
		}
	}
	// All-zero: all bytes 0. All -0: s = -0 -> half 0x8000, as the GPU sums.
	if b := one(make([]float32, 32)); b != (q81Block{}) {
		t.Errorf("zero block %+v", b)
	}
	for i := range x {
		x[i] = float32(math.Copysign(0, -1))
	}
	if b := one(x); b.d != 0 || b.s != 0x8000 || b.qs != [32]int8{} {
		t.Errorf("-0 block %+v", b)
	}
	// -0 inputs padded with +0 lanes sum to +0.
	if b := parseQ81(QuantizeQ8_1(x, 7))[0]; b.s != 0 {
		t.Errorf("-0 padded block s %#x", b.s)
	}
	// Single nonzero, huge and denormal.
	for _, a := range []float32{1, -3e-5, 65504 * 127, math.MaxFloat32} {
		x := make([]float32, 32)
		x[9] = a
		b := one(x)
		wq := int8(127)
		if a < 0 {
			wq = -127
		}
		if b.qs[9] != wq || b.d != F32ToF16(float32(math.Abs(float64(a)))/127) || b.s != F32ToF16(a) {
			t.Errorf("single %v: %+v", a, b)
		}
	}
	// Convention for degenerate blocks (cudaFloatToInt8): amax = 2^-149 makes
	// d = 0, so x/d = +Inf -> int16 saturates to 32767 -> low byte 0xFF, and
	// 0/0 = NaN -> 0. half(2^-149) = 0, so s = 0.
	x = make([]float32, 32)
	x[0] = 0x1p-149
	if b := one(x); b.d != 0 || b.s != 0 || b.qs[0] != -1 || b.qs[1] != 0 {
		t.Errorf("denormal block %+v", b)
	}
	// amax = 190 * 2^-149: d = 190/127 ulps rounds to 1 ulp, x/d = 190, stored
	// as its low byte -66.
	x[0] = 190 * 0x1p-149
	if b := one(x); b.qs[0] != -66 {
		t.Errorf("coarse-subnormal block qs0 %d", b.qs[0])
	}
	// NaN lanes: ignored by the max, quantize to 0, make s the canonical NaN.
	x = make([]float32, 32)
	x[0], x[1] = float32(math.NaN()), 2
	if b := one(x); b.qs[0] != 0 || b.qs[1] != 127 || b.d != F32ToF16(2.0/127) || b.s != 0x7fff {
		t.Errorf("NaN block %+v", b)
	}
	for i := range x {
		x[i] = float32(math.NaN())
	}
	if b := one(x); b.d != 0x7fff || b.s != 0x7fff || b.qs != [32]int8{} {
		t.Errorf("all-NaN block %+v", b)
	}
	// K = 0 gives no blocks; K > len(x) panics.
	if got := QuantizeQ8_1(nil, 0); len(got) != 0 {
		t.Errorf("K=0: %d bytes", len(got))
	}
	mustPanic(t, "K > len", func() { QuantizeQ8_1(make([]float32, 3), 4) })
}

func TestCudaFloatToInt8(t *testing.T) {
	cases := []struct {
		f    float32
		want int8
	}{
		{0, 0}, {127, 127}, {-127, -127}, {-128, -128}, {128, -128}, {190, -66},
		{255, -1}, {256, 0}, {40000, -1}, {-40000, 0},
		{float32(math.Inf(1)), -1}, {float32(math.Inf(-1)), 0}, {float32(math.NaN()), 0},
	}
	for _, c := range cases {
		if got := cudaFloatToInt8(c.f); got != c.want {
			t.Errorf("cudaFloatToInt8(%v) = %d, want %d", c.f, got, c.want)
		}
	}
}
