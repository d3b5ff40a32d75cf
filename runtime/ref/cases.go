package ref

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
)

// The references the families' contracts name (verify.reference in
// templates/kernels.yaml).
func init() {
	Register("gemv", gemvReference)
	Register("q8k", blockReference(q8kFormat))
	Register("q8_1", blockReference(q81Format))
}

// gemvReference: W (N x K weights), X (M x K activations) and, for scaled
// dtypes, scale (N f32) random; Y = Gemv, magnitudes GemvAbs.
func gemvReference(p Problem, rng *rand.Rand) (*Expected, error) {
	if err := p.need("W", "X", "scale"); err != nil {
		return nil, err
	}
	w, wf, err := Random(rng, p.Weight, p.N*p.K)
	if err != nil {
		return nil, err
	}
	if p.Weight == "bf16" {
		w, wf = wideRows(w, wf, p.K)
	}
	x, xf, err := Random(rng, p.Act, p.M*p.K)
	if err != nil {
		return nil, err
	}
	var sb []byte
	var sf []float32
	if p.Scaled {
		sb, sf = Scales(rng, p.N)
	}
	n := p.N
	return &Expected{
		Inputs: map[string][]byte{"W": w, "X": x, "scale": sb},
		Want:   Gemv(wf, xf, sf, p.M, p.N, p.K),
		Mag:    GemvAbs(wf, xf, sf, p.M, p.N, p.K),
		Index:  func(i int) string { return fmt.Sprintf("t=%d n=%d", i/n, i%n) },
	}, nil
}

// wideRows scales bf16 weight rows, in blocks of 16 rows, by 1, 1, 2^-30
// and 2^20 (exactly: powers of two), so that rows outside f16's range (the
// Vulkan cooperative-matrix tiles convert bf16 to f16 and must fall back to
// their exact path there) are verified on every bf16 case with N > 32.
// Every output's terms keep one magnitude, so the relative bound is as
// tight as for unscaled rows.
func wideRows(w []byte, wf []float32, k int) ([]byte, []float32) {
	for i := range wf {
		var e int
		switch (i / k / 16) % 4 {
		case 2:
			e = -30
		case 3:
			e = 20
		default:
			continue
		}
		h := F32ToBF16(float32(math.Ldexp(float64(wf[i]), e)))
		wf[i] = BF16ToF32(h)
		binary.LittleEndian.PutUint16(w[2*i:], h)
	}
	return w, wf
}

// need checks that the launch has the buffers a reference fills.
func (p *Problem) need(names ...string) error {
	for _, n := range names {
		if _, ok := p.Buffer(n); !ok {
			var have []string
			for _, b := range p.Buffers {
				have = append(have, b.Name)
			}
			return fmt.Errorf("the launch has no buffer %s (it has %v)", n, have)
		}
	}
	return nil
}

// blockFormat is an activation quantization format: rows of K inputs in
// blocks of Block elements, each quantized to Bytes bytes.
type blockFormat struct {
	Block, Bytes int
	// Pad: the last block of a row is padded with zeros (any K); otherwise
	// K must be a multiple of Block.
	Pad bool
	q8k bool // for the crafted patterns (genCtx.q8k)
	// quantize quantizes one row of K decoded inputs.
	quantize func(row []float32) ([]byte, error)
	// field names the field holding byte off of a block, with both values.
	field func(got, want []byte, off int) string
}

var q8kFormat = blockFormat{
	Block: QK_K, Bytes: Q8KBlockBytes, q8k: true,
	quantize: QuantizeQ8K,
	field: func(got, want []byte, off int) string { // f32 d, int8 qs[256], int16 bsums[16]
		switch {
		case off < 4:
			return fmt.Sprintf("d got %#08x want %#08x", binary.LittleEndian.Uint32(got), binary.LittleEndian.Uint32(want))
		case off < 260:
			return fmt.Sprintf("qs[%d] got %d want %d", off-4, int8(got[off]), int8(want[off]))
		}
		g := (off - 260) / 2
		return fmt.Sprintf("bsums[%d] got %d want %d", g, int16(binary.LittleEndian.Uint16(got[260+2*g:])), int16(binary.LittleEndian.Uint16(want[260+2*g:])))
	},
}

var q81Format = blockFormat{
	Block: QK8_1, Bytes: Q81BlockBytes, Pad: true,
	quantize: func(row []float32) ([]byte, error) { return QuantizeQ8_1(row, len(row)), nil },
	field: func(got, want []byte, off int) string { // half d, half s, int8 qs[32]
		u16 := func(b []byte, i int) uint16 { return binary.LittleEndian.Uint16(b[i:]) }
		switch {
		case off < 2:
			return fmt.Sprintf("d got %#04x want %#04x", u16(got, 0), u16(want, 0))
		case off < 4:
			return fmt.Sprintf("s got %#04x want %#04x", u16(got, 2), u16(want, 2))
		}
		return fmt.Sprintf("qs[%d] got %d want %d", off-4, int8(got[off]), int8(want[off]))
	},
}

// blockReference quantizes M rows of K activations, the launch's one in
// buffer, made of random and crafted blocks (blockPatterns, cycled from a
// random start block by block).
func blockReference(f blockFormat) Reference {
	return func(p Problem, rng *rand.Rand) (*Expected, error) {
		var in []Buffer
		for _, b := range p.Buffers {
			if b.Dir == "in" {
				in = append(in, b)
			}
		}
		if len(in) != 1 {
			return nil, fmt.Errorf("a quantizer takes one input buffer; the launch has %d", len(in))
		}
		rows, K := p.M, p.K
		if rows < 0 || K < 1 || (!f.Pad && K%f.Block != 0) {
			return nil, fmt.Errorf("rows=%d K=%d: K must be positive and a multiple of %d", rows, K, f.Block)
		}
		nb := (K + f.Block - 1) / f.Block
		vals := make([]float32, rows*K)
		pattern := make([]int, rows*nb)
		g := &genCtx{rng: rng, q8k: f.q8k, act: p.Act}
		base := rng.IntN(len(blockPatterns))
		for row := 0; row < rows; row++ {
			for b := 0; b < nb; b++ {
				pi := (base + row*nb + b) % len(blockPatterns)
				pattern[row*nb+b] = pi
				lo, hi := row*K+b*f.Block, row*K+min((b+1)*f.Block, K)
				blockPatterns[pi].gen(g, vals[lo:hi])
			}
		}
		x, dec, err := Encode(p.Act, vals)
		if err != nil {
			return nil, err
		}
		want := make([]byte, 0, rows*nb*f.Bytes)
		for row := 0; row < rows; row++ {
			q, err := f.quantize(dec[row*K : (row+1)*K])
			if err != nil {
				return nil, err
			}
			want = append(want, q...)
		}
		describe := func(i int, got, want []byte) string {
			off := 0
			for off < len(got)-1 && got[off] == want[off] {
				off++
			}
			row, b := i/nb, i%nb
			inputs := dec[row*K+b*f.Block : row*K+min((b+1)*f.Block, K)]
			return fmt.Sprintf("row %d block %d (%s block): %s; block got %x want %x; inputs %s",
				row, b, blockPatterns[pattern[i]].name, f.field(got, want, off), got, want, floatList(inputs, 12))
		}
		return &Expected{Inputs: map[string][]byte{in[0].Name: x}, Bytes: want, Unit: f.Bytes, Describe: describe}, nil
	}
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
