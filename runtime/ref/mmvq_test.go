package ref

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

func h16(b []byte, f float32) { binary.LittleEndian.PutUint16(b, F32ToF16(f)) }

// q81Blocks builds Q8_1 blocks from (d, qs) pairs; s is left 0 (unread).
func q81Blocks(ds []float32, qs [][32]int8) []byte {
	out := make([]byte, len(ds)*Q81BlockBytes)
	for i, d := range ds {
		h16(out[i*Q81BlockBytes:], d)
		for j, q := range qs[i] {
			out[i*Q81BlockBytes+4+j] = byte(q)
		}
	}
	return out
}

// A q4_k block by hand: d = 1, dmin = 0.5; sub-block 0 scale 1 min 2,
// sub-block 1 scale 3 min 4, sub-block 5 (high bits from bytes 1 and 5)
// scale 50 min 23, the rest 0.
func TestQ4KHand(t *testing.T) {
	blk := make([]byte, Q4KBlockBytes)
	h16(blk[0:], 1)
	h16(blk[2:], 0.5)
	sc := blk[4:16]
	sc[0], sc[4] = 1, 2 // j=0: scale 1, min 2
	sc[1] = 0xC3        // j=1 scale 3; top bits 3 -> j=5 scale += 48
	sc[5] = 0x44        // j=1 min 4; top bits 1 -> j=5 min += 16
	sc[9] = 0x72        // j=5: scale low 2, min low 7
	for j, want := range [][2]int{{1, 2}, {3, 4}, {0, 0}, {0, 0}, {0, 0}, {50, 23}, {0, 0}, {0, 0}} {
		if s, m := Q4KScaleMin(sc, j); s != want[0] || m != want[1] {
			t.Errorf("Q4KScaleMin(%d) = %d, %d; want %d, %d", j, s, m, want[0], want[1])
		}
	}
	qs := blk[16:]
	qs[0] = 0x5A    // sub-block 0 elem 0: 10; sub-block 1 elem 0: 5
	qs[64+7] = 0x30 // sub-block 4 elem 7: 0; sub-block 5 elem 7: 3
	w, mag := make([]float64, 256), make([]float64, 256)
	DecodeWeightBlock("q4_k", blk, w, mag)
	for i, want := range map[int]float64{0: 1*1*10 - 0.5*2, 1: -1, 32: 3*5 - 0.5*4, 33: -2, 64: 0, 128: 0, 160: -11.5, 167: 50*3 - 0.5*23, 255: 0} {
		if w[i] != want {
			t.Errorf("w[%d] = %g, want %g", i, w[i], want)
		}
	}
	if mag[167] != 150+11.5 || mag[1] != 1 {
		t.Errorf("mag[167] = %g (want 161.5), mag[1] = %g (want 1)", mag[167], mag[1])
	}
	// x: 1 at 0, 1 over sub-block 1, -1 at 167, 0 elsewhere.
	ds := make([]float32, 8)
	q := make([][32]int8, 8)
	ds[0], q[0][0] = 0.5, 2
	ds[1] = 1
	for j := range q[1] {
		q[1][j] = 1
	}
	ds[5], q[5][7] = 0.25, -4
	want, m, err := MMVQ("q4_k", blk, q81Blocks(ds, q), 1, 1, 256)
	if err != nil {
		t.Fatal(err)
	}
	// 9 + (13 + 31 * -2) + 138.5 * -1; magnitudes 11 + (17 + 31 * 2) + 161.5
	if want[0] != -178.5 || m[0] != 251.5 {
		t.Errorf("MMVQ q4_k = %g (mag %g), want -178.5 (mag 251.5)", want[0], m[0])
	}
}

// A q6_k block by hand: d = 0.5, three quants and three scales set.
func TestQ6KHand(t *testing.T) {
	blk := make([]byte, Q6KBlockBytes)
	ql, qh, sc := blk[0:128], blk[128:192], blk[192:208]
	h16(blk[208:], 0.5)
	sc[0], sc[5], sc[11] = 2, 0xFD, 5 // 2, -3, 5
	ql[0], qh[0] = 0x07, 0x02         // i=0: 7 | 2<<4 = 39 -> 7; scale sc[0]
	ql[16], qh[16] = 0xA0, 0x30       // i=80 (s=2, e=16): 10 | 3<<4 = 58 -> 26; sc[5]
	ql[113] = 0x01                    // i=177 (h=1, s=1, e=17): 1 -> -31; sc[11]
	w, mag := make([]float64, 256), make([]float64, 256)
	DecodeWeightBlock("q6_k", blk, w, mag)
	for i, want := range map[int]float64{0: 7, 1: -32, 15: -32, 16: 0, 64: 0, 80: -39, 81: 48, 95: 48, 176: -80, 177: -77.5, 191: -80, 192: 0} {
		if w[i] != want {
			t.Errorf("w[%d] = %g, want %g", i, w[i], want)
		}
	}
	ds := make([]float32, 8)
	q := make([][32]int8, 8)
	for b := range ds {
		ds[b] = 1
		for j := range q[b] {
			q[b][j] = 1
		}
	}
	want, m, err := MMVQ("q6_k", blk, q81Blocks(ds, q), 1, 1, 256)
	if err != nil {
		t.Fatal(err)
	}
	if want[0] != 7-15*32-39+15*48-77.5-15*80 || m[0] != 7+15*32+39+15*48+77.5+15*80 {
		t.Errorf("MMVQ q6_k = %g (mag %g), want -1069.5 (mag 2523.5)", want[0], m[0])
	}
	_ = mag
}

func TestQ80Hand(t *testing.T) {
	blk := make([]byte, Q80BlockBytes)
	h16(blk, -0.25)
	blk[2], blk[33] = 0x80, 0x7F // -128 -> 32; 127 -> -31.75
	ds := []float32{2}
	q := make([][32]int8, 1)
	q[0][0], q[0][31] = 3, -1 // 6, -2
	want, m, err := MMVQ("q8_0", blk, q81Blocks(ds, q), 1, 1, 32)
	if err != nil {
		t.Fatal(err)
	}
	if want[0] != 255.5 || m[0] != 255.5 {
		t.Errorf("MMVQ q8_0 = %g (mag %g), want 255.5 (mag 255.5)", want[0], m[0])
	}
}

// q4kSequential decodes a q4_k block the way the format is usually written
// down: 64 weights at a time, two sub-blocks sharing 32 quant bytes (low
// nibbles first), the scale index advancing by two: a second transcription
// of the layout to hold DecodeWeightBlock's indexing against.
func q4kSequential(blk []byte) []float64 {
	d, dmin := half(blk[0:]), half(blk[2:])
	q := blk[16:]
	var out []float64
	is := 0
	for j := 0; j < 256; j += 64 {
		s1, m1 := Q4KScaleMin(blk[4:16], is)
		s2, m2 := Q4KScaleMin(blk[4:16], is+1)
		for l := 0; l < 32; l++ {
			out = append(out, d*float64(s1)*float64(q[l]&15)-dmin*float64(m1))
		}
		for l := 0; l < 32; l++ {
			out = append(out, d*float64(s2)*float64(q[l]>>4)-dmin*float64(m2))
		}
		q = q[32:]
		is += 2
	}
	return out
}

// q6kSequential: 128 weights at a time from 64 ql and 32 qh bytes and 8
// scales, four quants per (l, half).
func q6kSequential(blk []byte) []float64 {
	d := half(blk[208:])
	ql, qh, sc := blk[0:128], blk[128:192], blk[192:208]
	out := make([]float64, 256)
	for n := 0; n < 2; n++ {
		for l := 0; l < 32; l++ {
			is := l / 16
			q1 := int(ql[l]&15|(qh[l]&3)<<4) - 32
			q2 := int(ql[l+32]&15|(qh[l]>>2&3)<<4) - 32
			q3 := int(ql[l]>>4|(qh[l]>>4&3)<<4) - 32
			q4 := int(ql[l+32]>>4|(qh[l]>>6&3)<<4) - 32
			out[128*n+l] = d * float64(int8(sc[is])) * float64(q1)
			out[128*n+l+32] = d * float64(int8(sc[is+2])) * float64(q2)
			out[128*n+l+64] = d * float64(int8(sc[is+4])) * float64(q3)
			out[128*n+l+96] = d * float64(int8(sc[is+6])) * float64(q4)
		}
		ql, qh, sc = ql[64:], qh[32:], sc[8:]
	}
	return out
}

func TestWeightBlocksAgainstSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, f := range []string{"q4_k", "q6_k"} {
		b, kinds, err := RandomWeightBlocks(rng, f, 400)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		bytes := WeightFormats[f].Bytes
		w, mag := make([]float64, 256), make([]float64, 256)
		for i := range kinds {
			seen[kinds[i]] = true
			blk := b[i*bytes : (i+1)*bytes]
			DecodeWeightBlock(f, blk, w, mag)
			seq := q4kSequential
			if f == "q6_k" {
				seq = q6kSequential
			}
			for j, v := range seq(blk) {
				if w[j] != v || math.IsNaN(w[j]) || mag[j] < math.Abs(w[j]) {
					t.Fatalf("%s block %d (%s) element %d: %g, sequential %g, mag %g", f, i, kinds[i], j, w[j], v, mag[j])
				}
			}
		}
		if len(seen) != len(WeightPatterns) {
			t.Errorf("%s: 400 blocks drew %d of %d patterns", f, len(seen), len(WeightPatterns))
		}
	}
}

// The decoded weights are exact: float32 arithmetic on the same inputs,
// with the two q4_k products each exact in float32, lands within one
// rounding of the difference.
func TestQ4KExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	b, _, _ := RandomWeightBlocks(rng, "q4_k", 200)
	w, mag := make([]float64, 256), make([]float64, 256)
	for i := 0; i < 200; i++ {
		blk := b[i*144 : (i+1)*144]
		DecodeWeightBlock("q4_k", blk, w, mag)
		d, dmin := F16ToF32(binary.LittleEndian.Uint16(blk)), F16ToF32(binary.LittleEndian.Uint16(blk[2:]))
		for j := 0; j < 8; j++ {
			s, m := Q4KScaleMin(blk[4:16], j)
			for l := 0; l < 32; l++ {
				q := blk[16+32*(j/2)+l] >> (4 * (j % 2)) & 15
				a, c := float64(d*float32(s)*float32(q)), float64(dmin*float32(m))
				if a-c != w[32*j+l] {
					t.Fatalf("block %d sub-block %d elem %d: %g - %g != %g", i, j, l, a, c, w[32*j+l])
				}
			}
		}
	}
}

func TestRandomQ8_1(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	b, err := RandomQ8_1(rng, 3, 4096)
	if err != nil {
		t.Fatal(err)
	}
	x, err := DecodeQ8_1(b, 3, 4096)
	if err != nil {
		t.Fatal(err)
	}
	var neg128, zero int
	for i := 0; i < len(b)/36; i++ {
		blk := b[36*i : 36*i+36]
		if binary.LittleEndian.Uint16(blk) == 0 {
			zero++
		}
		for _, q := range blk[4:] {
			if q == 0x80 {
				neg128++
			}
		}
	}
	if neg128 == 0 || zero == 0 || len(x) != 3*4096 {
		t.Errorf("RandomQ8_1: %d quants of -128, %d zero blocks, %d values", neg128, zero, len(x))
	}
	if _, err := RandomQ8_1(rng, 1, 40); err == nil {
		t.Error("RandomQ8_1 accepted K = 40")
	}
	if _, _, err := MMVQ("q4_k", make([]byte, 144), make([]byte, 36*8), 1, 1, 128); err == nil {
		t.Error("MMVQ accepted q4_k with K = 128")
	}
}
