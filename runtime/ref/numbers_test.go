package ref

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// Independent decoders: build the value from the bit fields with math.Ldexp
// instead of bit manipulation.

func refF16(h uint16) float64 {
	s, e, m := int(h>>15), int(h>>10)&0x1f, int(h&0x3ff)
	var v float64
	switch {
	case e == 31 && m != 0:
		return math.NaN()
	case e == 31:
		v = math.Inf(1)
	case e == 0:
		v = math.Ldexp(float64(m), -24)
	default:
		v = math.Ldexp(float64(1024+m), e-25)
	}
	if s == 1 {
		v = -v
	}
	return v
}

func refBF16(b uint16) float64 {
	s, e, m := int(b>>15), int(b>>7)&0xff, int(b&0x7f)
	var v float64
	switch {
	case e == 255 && m != 0:
		return math.NaN()
	case e == 255:
		v = math.Inf(1)
	case e == 0:
		v = math.Ldexp(float64(m), -133)
	default:
		v = math.Ldexp(float64(128+m), e-134)
	}
	if s == 1 {
		v = -v
	}
	return v
}

func refE4M3(b uint8) float64 {
	s, e, m := int(b>>7), int(b>>3)&0xf, int(b&7)
	var v float64
	switch {
	case e == 15 && m == 7:
		return math.NaN()
	case e == 0:
		v = math.Ldexp(float64(m), -9)
	default:
		v = math.Ldexp(float64(8+m), e-10)
	}
	if s == 1 {
		v = -v
	}
	return v
}

// sameValue compares with NaN == NaN and -0 != +0.
func sameValue(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}

type codec struct {
	name   string
	n      int // number of bit patterns
	dec    func(c uint32) float32
	enc    func(f float32) uint32
	ref    func(c uint32) float64
	isNaN  func(c uint32) bool
	quiet  func(c uint32) uint32 // expected enc(dec(c)) for NaN c
	sign   uint32
	maxFin uint32 // largest finite positive code
	eLo    int    // float32 exponent range where the format rounds
	eHi    int    // (used to focus random sampling)
}

var codecs = []codec{
	{
		name: "f16", n: 1 << 16,
		dec:   func(c uint32) float32 { return F16ToF32(uint16(c)) },
		enc:   func(f float32) uint32 { return uint32(F32ToF16(f)) },
		ref:   func(c uint32) float64 { return refF16(uint16(c)) },
		isNaN: func(c uint32) bool { return c&0x7c00 == 0x7c00 && c&0x3ff != 0 },
		quiet: func(c uint32) uint32 { return c | 0x200 },
		sign:  0x8000, maxFin: 0x7bff, eLo: -27, eHi: 17,
	},
	{
		name: "bf16", n: 1 << 16,
		dec:   func(c uint32) float32 { return BF16ToF32(uint16(c)) },
		enc:   func(f float32) uint32 { return uint32(F32ToBF16(f)) },
		ref:   func(c uint32) float64 { return refBF16(uint16(c)) },
		isNaN: func(c uint32) bool { return c&0x7f80 == 0x7f80 && c&0x7f != 0 },
		quiet: func(c uint32) uint32 { return c | 0x40 },
		sign:  0x8000, maxFin: 0x7f7f, eLo: -140, eHi: 127,
	},
	{
		name: "e4m3", n: 1 << 8,
		dec:   func(c uint32) float32 { return E4M3ToF32(uint8(c)) },
		enc:   func(f float32) uint32 { return uint32(F32ToE4M3(f)) },
		ref:   func(c uint32) float64 { return refE4M3(uint8(c)) },
		isNaN: func(c uint32) bool { return c&0x7f == 0x7f },
		quiet: func(c uint32) uint32 { return 0x7f },
		sign:  0x80, maxFin: 0x7e, eLo: -12, eHi: 10,
	},
}

func TestDecodeAllPatterns(t *testing.T) {
	for _, c := range codecs {
		nan := 0
		for x := 0; x < c.n; x++ {
			got := float64(c.dec(uint32(x)))
			want := c.ref(uint32(x))
			if !sameValue(got, want) {
				t.Fatalf("%s: decode(%#x) = %v, want %v", c.name, x, got, want)
			}
			if c.isNaN(uint32(x)) != math.IsNaN(want) {
				t.Fatalf("%s: NaN classification of %#x", c.name, x)
			}
			if math.IsNaN(want) {
				nan++
			}
		}
		t.Logf("%s: %d patterns decoded, %d NaN", c.name, c.n, nan)
	}
}

func TestRoundTripAllPatterns(t *testing.T) {
	for _, c := range codecs {
		for x := uint32(0); x < uint32(c.n); x++ {
			got := c.enc(c.dec(x))
			want := x
			if c.isNaN(x) {
				want = c.quiet(x)
				if !c.isNaN(got) {
					t.Fatalf("%s: NaN %#x re-encoded to non-NaN %#x", c.name, x, got)
				}
			}
			if got != want {
				t.Fatalf("%s: enc(dec(%#x)) = %#x, want %#x", c.name, x, got, want)
			}
		}
	}
}

// TestMidpoints checks round-to-nearest-even at every exact tie between
// neighbouring finite representable values of each format, and the float32
// values one ulp either side of it, for both signs.
func TestMidpoints(t *testing.T) {
	for _, c := range codecs {
		ties := 0
		for lo := uint32(0); lo < c.maxFin; lo++ {
			hi := lo + 1
			a, b := float64(c.dec(lo)), float64(c.dec(hi))
			mid := (a + b) / 2
			m32 := float32(mid)
			if float64(m32) != mid {
				t.Fatalf("%s: midpoint of %#x,%#x not exact in float32", c.name, lo, hi)
			}
			even := lo
			if lo&1 == 1 {
				even = hi
			}
			below := math.Nextafter32(m32, float32(math.Inf(-1)))
			above := math.Nextafter32(m32, float32(math.Inf(1)))
			for _, s := range []uint32{0, c.sign} {
				neg := func(f float32) float32 {
					if s != 0 {
						return -f
					}
					return f
				}
				check := func(f float32, want uint32) {
					if got := c.enc(neg(f)); got != want|s {
						t.Fatalf("%s: enc(%v) = %#x, want %#x", c.name, neg(f), got, want|s)
					}
				}
				check(m32, even)
				check(below, lo)
				check(above, hi)
				check(float32(a), lo)
				ties++
			}
		}
		t.Logf("%s: %d ties checked", c.name, ties)
	}
}

// TestEncodeRandom compares each encoder with a table search over all finite
// decoded values (nearest, ties to even code) for random float32 inputs
// spread over all exponents.
func TestEncodeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range codecs {
		var vals []float64
		var codes []uint32
		for x := uint32(0); x <= c.maxFin; x++ {
			vals = append(vals, float64(c.dec(x)))
			codes = append(codes, x)
		}
		maxFin := vals[len(vals)-1]
		refEnc := func(f float32) uint32 {
			v := math.Abs(float64(f))
			var s uint32
			if math.Signbit(float64(f)) {
				s = c.sign
			}
			i := sort.SearchFloat64s(vals, v) // first vals[i] >= v
			var code uint32
			switch {
			case i == len(vals):
				// Above the largest finite value.
				if c.name == "e4m3" {
					return s | c.maxFin // saturating choice
				}
				// f16/bf16: round against the next power of two (= infinity).
				next := 2 * math.Ldexp(1, math.Ilogb(maxFin))
				if v-maxFin < next-v || (v-maxFin == next-v && c.maxFin&1 == 0) {
					return s | c.maxFin
				}
				return s | (c.maxFin + 1)
			case vals[i] == v:
				code = codes[i]
			default:
				lo, hi := vals[i-1], vals[i]
				switch {
				case v-lo < hi-v:
					code = codes[i-1]
				case v-lo > hi-v:
					code = codes[i]
				case codes[i-1]&1 == 0:
					code = codes[i-1]
				default:
					code = codes[i]
				}
			}
			return s | code
		}
		const n = 2_000_000
		for k := 0; k < n; k++ {
			// Half the inputs are random bit patterns, half have exponents
			// where the format actually rounds.
			f := math.Float32frombits(rng.Uint32())
			if k%2 == 1 {
				e := c.eLo + rng.IntN(c.eHi-c.eLo+1)
				f = math.Float32frombits(rng.Uint32()&0x807fffff | uint32(e+127)<<23)
			}
			if f != f || math.IsInf(float64(f), 0) {
				continue
			}
			if got, want := c.enc(f), refEnc(f); got != want {
				t.Fatalf("%s: enc(%v [%#08x]) = %#x, want %#x", c.name, f, math.Float32bits(f), got, want)
			}
		}
		t.Logf("%s: %d random float32 inputs checked", c.name, n)
	}
}

func TestF16Edges(t *testing.T) {
	p := func(e int) float32 { return float32(math.Ldexp(1, e)) }
	up := func(f float32) float32 { return math.Nextafter32(f, float32(math.Inf(1))) }
	dn := func(f float32) float32 { return math.Nextafter32(f, 0) }
	cases := []struct {
		f    float32
		want uint16
	}{
		{65504, 0x7bff},
		{65519.998, 0x7bff},
		{65520, 0x7c00}, // tie with 65536; 0x7bff is odd -> infinity
		{-65520, 0xfc00},
		{dn(65520), 0x7bff},
		{math.MaxFloat32, 0x7c00},
		{float32(math.Inf(1)), 0x7c00},
		{float32(math.Inf(-1)), 0xfc00},
		{p(-24), 0x0001},
		{p(-25), 0x0000}, // tie with 0 -> even
		{-p(-25), 0x8000},
		{up(p(-25)), 0x0001},
		{3 * p(-25), 0x0002},      // tie 1|2 -> 2
		{5 * p(-25), 0x0002},      // tie 2|3 -> 2
		{p(-14), 0x0400},          // smallest normal
		{p(-14) - p(-25), 0x0400}, // tie 0x3ff|0x400 -> even 0x400
		{p(-14) - p(-24), 0x03ff}, // exactly the largest subnormal
		{math.SmallestNonzeroFloat32, 0},
		{-math.SmallestNonzeroFloat32, 0x8000},
		{p(-126), 0}, // float32 smallest normal
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{1 + 1.0/2048, 0x3c00},                     // tie -> even
		{up(1 + 1.0/2048), 0x3c01},                 // just above the tie
		{1 + 3.0/2048, 0x3c02},                     // tie 0x3c01|0x3c02 -> even
		{math.Float32frombits(0x7f800001), 0x7e00}, // sNaN: must stay NaN (quiet), not become Inf
	}
	for _, c := range cases {
		if got := F32ToF16(c.f); got != c.want {
			t.Errorf("F32ToF16(%v [%#08x]) = %#04x, want %#04x", c.f, math.Float32bits(c.f), got, c.want)
		}
	}
	if h := F32ToF16(float32(math.NaN())); h&0x7c00 != 0x7c00 || h&0x3ff == 0 || h&0x200 == 0 {
		t.Errorf("F32ToF16(NaN) = %#04x, want a quiet NaN", h)
	}
	if f := F16ToF32(0x7c01); math.Float32bits(f) != 0x7fc02000 {
		t.Errorf("F16ToF32(sNaN 0x7c01) bits = %#08x, want quiet 0x7fc02000", math.Float32bits(f))
	}
}

func TestBF16Edges(t *testing.T) {
	cases := []struct {
		bits uint32
		want uint16
	}{
		{0x3f800000, 0x3f80},
		{0x3f808000, 0x3f80}, // tie, 0x3f80 even
		{0x3f818000, 0x3f82}, // tie, 0x3f81 odd -> up
		{0x3f808001, 0x3f81},
		{0x3f807fff, 0x3f80},
		{0x7f7f7fff, 0x7f7f},
		{0x7f7f8000, 0x7f80}, // tie at the top: 0x7f7f odd -> infinity
		{0x7f7fffff, 0x7f80}, // MaxFloat32 -> infinity
		{0xff7f8000, 0xff80},
		{0x00008000, 0x0000}, // subnormal tie -> 0
		{0x00018000, 0x0002}, // subnormal tie, odd -> up
		{0x00008001, 0x0001},
		{0x80008000, 0x8000},
		{0x007fffff, 0x0080}, // largest subnormal carries into smallest normal
		{0x7f800000, 0x7f80},
		{0xff800000, 0xff80},
		{0x7f800001, 0x7fc0}, // sNaN with payload only in the low bits stays NaN
		{0xffc00000, 0xffc0},
		{0x7fffffff, 0x7fff},
	}
	for _, c := range cases {
		if got := F32ToBF16(math.Float32frombits(c.bits)); got != c.want {
			t.Errorf("F32ToBF16(%#08x) = %#04x, want %#04x", c.bits, got, c.want)
		}
	}
	if f := BF16ToF32(0x7f81); math.Float32bits(f) != 0x7fc10000 {
		t.Errorf("BF16ToF32(sNaN 0x7f81) bits = %#08x, want 0x7fc10000", math.Float32bits(f))
	}
}

func TestE4M3Edges(t *testing.T) {
	p := func(e int) float32 { return float32(math.Ldexp(1, e)) }
	up := func(f float32) float32 { return math.Nextafter32(f, float32(math.Inf(1))) }
	cases := []struct {
		f    float32
		want uint8
	}{
		{448, 0x7e},
		{-448, 0xfe},
		{432, 0x7e}, // tie 416|448 -> 448 (m=6 even)
		{449, 0x7e}, // saturation choice
		{464, 0x7e},
		{480, 0x7e},
		{1e6, 0x7e},
		{math.MaxFloat32, 0x7e},
		{-math.MaxFloat32, 0xfe},
		{float32(math.Inf(1)), 0x7e},
		{float32(math.Inf(-1)), 0xfe},
		{float32(math.NaN()), 0x7f},
		{float32(math.Copysign(math.NaN(), -1)), 0x7f},
		{1, 0x38},
		{1.0625, 0x38}, // tie 1|1.125 -> 1
		{1.1875, 0x3a}, // tie 1.125|1.25 -> 1.25
		{p(-9), 0x01},  // smallest subnormal
		{p(-10), 0x00}, // tie with 0
		{-p(-10), 0x80},
		{up(p(-10)), 0x01},
		{3 * p(-10), 0x02},
		{p(-6), 0x08},          // smallest normal
		{p(-6) - p(-10), 0x08}, // tie 7|8 -> 8
		{7 * p(-9), 0x07},      // largest subnormal
		{float32(math.Copysign(0, -1)), 0x80},
		{math.SmallestNonzeroFloat32, 0},
	}
	for _, c := range cases {
		if got := F32ToE4M3(c.f); got != c.want {
			t.Errorf("F32ToE4M3(%v) = %#02x, want %#02x", c.f, got, c.want)
		}
	}
	if E4M3ToF32(0x7e) != 448 || E4M3ToF32(0x01) != p(-9) || E4M3ToF32(0x08) != p(-6) {
		t.Error("E4M3ToF32 landmark values")
	}
}

func TestDecodeSlices(t *testing.T) {
	if got := DecodeF16([]uint16{0x3c00, 0xc000}); got[0] != 1 || got[1] != -2 {
		t.Errorf("DecodeF16 = %v", got)
	}
	if got := DecodeBF16([]uint16{0x3f80, 0xc000}); got[0] != 1 || got[1] != -2 {
		t.Errorf("DecodeBF16 = %v", got)
	}
	if got := DecodeE4M3([]byte{0x38, 0xc0}); got[0] != 1 || got[1] != -2 {
		t.Errorf("DecodeE4M3 = %v", got)
	}
}
