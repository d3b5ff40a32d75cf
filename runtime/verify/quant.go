package verify

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/ref"
	"github.com/kgen-dev/kgen/runtime/table"
)

// QuantCase is one quantizer run: rows rows of K elements.
type QuantCase struct{ Rows, K int }

func (c QuantCase) String() string { return fmt.Sprintf("rows=%d K=%d", c.Rows, c.K) }

// quantGuard is how many bytes after the output must stay poisoned.
const quantGuard = 64

// QuantCases lists the cases a quantizer variant is verified on: rows 1, 7,
// 64 and 4096, with one block, K tails (Q8_1 pads) and K = 4096. Every
// variant runs 4096 rows of one block (Q8_K) or of a block and a tail (Q8_1);
// the 4096 x 4096 case (16M elements, 40 s for the four Q8_1 layouts on
// lavapipe with f16 alone) runs only for the f32 variants of the device's own
// class: on lavapipe the llvmpipe rows, 4 per family (one per tile). The
// other classes' variants run the same SPIR-V blobs.
func QuantCases(v *table.Variant, dev kruntime.Device) []QuantCase {
	f, _ := kruntime.QuantFormatOf(v.Family)
	var cs []QuantCase
	if f.Pad {
		cs = []QuantCase{{1, 32}, {1, 5}, {1, 4096}, {7, 1000}, {64, 4136}, {4096, 40}}
	} else {
		cs = []QuantCase{{1, 256}, {1, 4096}, {7, 512}, {64, 4096}, {4096, 256}}
	}
	if v.Arch == dev.Arch && v.Param("dtype") == "f32" {
		cs = append(cs, QuantCase{4096, 4096})
	}
	return cs
}

// checkQuant runs one case on fresh inputs (random and crafted blocks, see
// blockPatterns) and compares the output with runtime/ref byte for byte. It
// returns the number of blocks compared and "" or what differed.
func checkQuant(r Runner, rng *rand.Rand, v *table.Variant, c QuantCase) (int, string) {
	f, _ := kruntime.QuantFormatOf(v.Family)
	act := dtype(v.Param("dtype")).Act
	nb := (c.K + f.Block - 1) / f.Block
	vals := make([]float32, c.Rows*c.K)
	pattern := make([]int, c.Rows*nb)
	g := &genCtx{rng: rng, q8k: !f.Pad, act: act}
	base := rng.IntN(len(blockPatterns))
	for row := 0; row < c.Rows; row++ {
		for b := 0; b < nb; b++ {
			p := (base + row*nb + b) % len(blockPatterns)
			pattern[row*nb+b] = p
			lo, hi := row*c.K+b*f.Block, row*c.K+min((b+1)*f.Block, c.K)
			blockPatterns[p].gen(g, vals[lo:hi])
		}
	}
	x, dec := encodeValues(act, vals)
	want := make([]byte, 0, c.Rows*nb*f.BlockBytes)
	for row := 0; row < c.Rows; row++ {
		in := dec[row*c.K : (row+1)*c.K]
		if f.Pad {
			want = append(want, ref.QuantizeQ8_1(in, c.K)...)
		} else {
			q, err := ref.QuantizeQ8K(in)
			if err != nil {
				return 0, "reference: " + err.Error()
			}
			want = append(want, q...)
		}
	}
	got, err := r.RunQuant(v, c.Rows, c.K, x, quantGuard)
	if err != nil {
		return 0, "run: " + err.Error()
	}
	if len(got) != len(want)+quantGuard {
		return 0, fmt.Sprintf("runner returned %d bytes, want %d + %d guard", len(got), len(want), quantGuard)
	}
	for i, b := range got[len(want):] {
		if b != 0xFF {
			return 0, fmt.Sprintf("wrote past the output: byte %d after it is %#02x (poison 0xff)", i, b)
		}
	}
	got = got[:len(want)]
	if bytes.Equal(got, want) {
		return len(want) / f.BlockBytes, ""
	}
	bad, first := 0, -1
	for blk := 0; blk < len(want)/f.BlockBytes; blk++ {
		lo, hi := blk*f.BlockBytes, (blk+1)*f.BlockBytes
		if !bytes.Equal(got[lo:hi], want[lo:hi]) {
			bad++
			if first < 0 {
				first = blk
			}
		}
	}
	lo := first * f.BlockBytes
	off := lo
	for got[off] == want[off] {
		off++
	}
	row, b := first/nb, first%nb
	in := dec[row*c.K+b*f.Block : row*c.K+min((b+1)*f.Block, c.K)]
	return len(want) / f.BlockBytes, fmt.Sprintf("%d of %d blocks differ; first: row %d block %d (%s block): %s; block got %x want %x; inputs %s",
		bad, len(want)/f.BlockBytes, row, b, blockPatterns[pattern[first]].name, quantField(f, got[lo:lo+f.BlockBytes], want[lo:lo+f.BlockBytes], off-lo),
		got[lo:lo+f.BlockBytes], want[lo:lo+f.BlockBytes], floatList(in, 12))
}

// quantField names the field holding byte off of a block, with both values.
func quantField(f kruntime.QuantFormat, got, want []byte, off int) string {
	u16 := func(b []byte, i int) uint16 { return binary.LittleEndian.Uint16(b[i:]) }
	if f.Pad { // Q8_1: half d, half s, int8 qs[32]
		switch {
		case off < 2:
			return fmt.Sprintf("d got %#04x want %#04x", u16(got, 0), u16(want, 0))
		case off < 4:
			return fmt.Sprintf("s got %#04x want %#04x", u16(got, 2), u16(want, 2))
		}
		return fmt.Sprintf("qs[%d] got %d want %d", off-4, int8(got[off]), int8(want[off]))
	}
	switch { // Q8_K: f32 d, int8 qs[256], int16 bsums[16]
	case off < 4:
		return fmt.Sprintf("d got %#08x want %#08x", binary.LittleEndian.Uint32(got), binary.LittleEndian.Uint32(want))
	case off < 260:
		return fmt.Sprintf("qs[%d] got %d want %d", off-4, int8(got[off]), int8(want[off]))
	}
	g := (off - 260) / 2
	return fmt.Sprintf("bsums[%d] got %d want %d", g, int16(u16(got, 260+2*g)), int16(u16(want, 260+2*g)))
}

func floatList(v []float32, n int) string {
	s := "["
	for i, f := range v {
		if i == n {
			s += fmt.Sprintf(" ... %d more", len(v)-n)
			break
		}
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%g", f)
	}
	return s + "]"
}

// encodeValues encodes float32 values as element type typ, returning the
// bytes and the exactly decoded values the reference sees.
func encodeValues(typ string, vals []float32) ([]byte, []float32) {
	dec := make([]float32, len(vals))
	var b []byte
	switch typ {
	case "f32":
		b = make([]byte, 4*len(vals))
		for i, f := range vals {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
			dec[i] = f
		}
	case "f16", "bf16":
		b = make([]byte, 2*len(vals))
		for i, f := range vals {
			var h uint16
			if typ == "f16" {
				h = ref.F32ToF16(f)
				dec[i] = ref.F16ToF32(h)
			} else {
				h = ref.F32ToBF16(f)
				dec[i] = ref.BF16ToF32(h)
			}
			binary.LittleEndian.PutUint16(b[2*i:], h)
		}
	default:
		panic("verify: unknown element type " + typ)
	}
	return b, dec
}

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
