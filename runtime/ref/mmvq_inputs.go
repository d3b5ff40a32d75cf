package ref

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// Weight blocks for tests and verification, built without a quantizer: any
// block whose halves are finite is a valid block, so random scales, mins
// and quants cover the format, and crafted blocks its corners.

// WeightPattern makes one block of a weight format.
type WeightPattern struct {
	Name string
	Gen  func(rng *rand.Rand, f string, blk []byte)
}

// randHalf is a half of magnitude scale * [0.5, 2), negative with
// probability neg.
func randHalf(rng *rand.Rand, scale float64, neg float64) uint16 {
	v := scale * (0.5 + 1.5*rng.Float64())
	if rng.Float64() < neg {
		v = -v
	}
	return F32ToF16(float32(v))
}

func putHalf(b []byte, h uint16) { binary.LittleEndian.PutUint16(b, h) }

// halfOffsets are the byte offsets of a format's halves: d (and q4_k's dmin).
func halfOffsets(f string) []int {
	switch f {
	case "q4_k":
		return []int{0, 2}
	case "q6_k":
		return []int{208}
	}
	return []int{0}
}

// WeightPatterns are the blocks RandomWeightBlocks draws from: a random
// block (every byte random, the halves random of both signs) and crafted
// ones.
var WeightPatterns = []WeightPattern{
	{"random", func(rng *rand.Rand, f string, blk []byte) {
		for i := range blk {
			blk[i] = byte(rng.Uint32())
		}
		for _, o := range halfOffsets(f) {
			putHalf(blk[o:], randHalf(rng, 1.0/256, 0.25))
		}
	}},
	{"zero", func(_ *rand.Rand, _ string, blk []byte) { clear(blk) }},
	// Every scale and min at its largest, every quant at its largest
	// (q6_k: scales 127, q = 63; q8_0: 127).
	{"max", func(rng *rand.Rand, f string, blk []byte) {
		for i := range blk {
			blk[i] = 0xFF
		}
		switch f {
		case "q6_k":
			for i := 192; i < 208; i++ {
				blk[i] = 0x7F
			}
		case "q8_0":
			for i := 2; i < 34; i++ {
				blk[i] = 0x7F
			}
		}
		for _, o := range halfOffsets(f) {
			putHalf(blk[o:], randHalf(rng, 1.0/256, 0))
		}
	}},
	// The most negative values: q6_k scales -128 with q = 0 (q - 32 =
	// -32), q8_0 quants -128; q4_k: quants 0, so only the mins count.
	{"min", func(rng *rand.Rand, f string, blk []byte) {
		clear(blk)
		switch f {
		case "q4_k":
			for i := 4; i < 16; i++ {
				blk[i] = 0xFF
			}
		case "q6_k":
			for i := 192; i < 208; i++ {
				blk[i] = 0x80
			}
		case "q8_0":
			for i := 2; i < 34; i++ {
				blk[i] = 0x80
			}
		}
		for _, o := range halfOffsets(f) {
			putHalf(blk[o:], randHalf(rng, 1.0/256, 0))
		}
	}},
	// Random quants and scales under negative halves (q4_k: d and dmin).
	{"negative", func(rng *rand.Rand, f string, blk []byte) {
		for i := range blk {
			blk[i] = byte(rng.Uint32())
		}
		for _, o := range halfOffsets(f) {
			putHalf(blk[o:], randHalf(rng, 1.0/256, 1))
		}
	}},
	// Subnormal halves: d (and dmin) 1..1023 ulps of 2^-24.
	{"subnormal", func(rng *rand.Rand, f string, blk []byte) {
		for i := range blk {
			blk[i] = byte(rng.Uint32())
		}
		for _, o := range halfOffsets(f) {
			putHalf(blk[o:], uint16(1+rng.IntN(1023))|uint16(rng.IntN(2))<<15)
		}
	}},
	// One scale (or min, or quant) set, the rest zero: a misplaced field
	// shows up alone.
	{"single", func(rng *rand.Rand, f string, blk []byte) {
		clear(blk)
		switch f {
		case "q4_k":
			i := 4 + rng.IntN(12)
			blk[i] = byte(1 << rng.IntN(8))
			for j := 16; j < 144; j++ {
				blk[j] = byte(rng.Uint32())
			}
		case "q6_k":
			blk[192+rng.IntN(16)] = byte(rng.Uint32())
			for j := 0; j < 192; j++ {
				blk[j] = byte(rng.Uint32())
			}
		case "q8_0":
			blk[2+rng.IntN(32)] = byte(rng.Uint32())
		}
		for _, o := range halfOffsets(f) {
			putHalf(blk[o:], randHalf(rng, 1.0/256, 0.5))
		}
	}},
}

// RandomWeightBlocks draws n blocks of format f: random ones, with one in
// four drawn from the crafted patterns. kinds[i] names block i's pattern.
func RandomWeightBlocks(rng *rand.Rand, f string, n int) (b []byte, kinds []string, err error) {
	wf, ok := WeightFormats[f]
	if !ok {
		return nil, nil, fmt.Errorf("ref: unknown weight block format %q", f)
	}
	b = make([]byte, n*wf.Bytes)
	kinds = make([]string, n)
	for i := 0; i < n; i++ {
		p := WeightPatterns[0]
		if rng.IntN(4) == 0 {
			p = WeightPatterns[1+rng.IntN(len(WeightPatterns)-1)]
		}
		p.Gen(rng, f, b[i*wf.Bytes:(i+1)*wf.Bytes])
		kinds[i] = p.Name
	}
	return b, kinds, nil
}

// RandomQ8_1 draws rows x K/32 Q8_1 blocks (K a multiple of 32): mostly
// QuantizeQ8_1 of random inputs in [-0.25, 1) (what quant_q8_1 writes),
// one in four raw (every quant random, -128 included, d random of both
// signs), one in 32 all zero.
func RandomQ8_1(rng *rand.Rand, rows, K int) ([]byte, error) {
	if K%QK8_1 != 0 || rows < 0 {
		return nil, fmt.Errorf("ref: Q8_1 rows of K=%d: K must be a multiple of 32", K)
	}
	nb := rows * K / QK8_1
	out := make([]byte, nb*Q81BlockBytes)
	var x [QK8_1]float32
	for i := 0; i < nb; i++ {
		blk := out[i*Q81BlockBytes : (i+1)*Q81BlockBytes]
		switch r := rng.IntN(32); {
		case r == 0:
			// zero block
		case r < 9:
			sum := 0
			for j := 4; j < Q81BlockBytes; j++ {
				blk[j] = byte(rng.Uint32())
				sum += int(int8(blk[j]))
			}
			d := randHalf(rng, 1.0/128, 0.25)
			putHalf(blk[0:], d)
			putHalf(blk[2:], F32ToF16(F16ToF32(d)*float32(sum)))
		default:
			for j := range x {
				x[j] = float32(rng.Float64()*1.25 - 0.25)
			}
			quantizeQ81Block(&x, blk)
		}
	}
	return out, nil
}
