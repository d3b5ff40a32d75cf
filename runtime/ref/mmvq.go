package ref

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Weight block formats of the quantized-weight GEMV (ggml/GGUF layouts,
// little-endian; docs/quant-formats.md has the activation side):
//
//	q4_k: 256 weights in 144 bytes: half d, half dmin, u8 scales[12] (eight
//	      6-bit scales and eight 6-bit mins), u8 qs[128] (4-bit quants);
//	      sub-block j (32 weights) is d*sc[j]*q - dmin*m[j]; bytes
//	      32c..32c+31 of qs hold sub-block 2c in their low nibbles and 2c+1
//	      in their high nibbles.
//	q6_k: 256 weights in 210 bytes: u8 ql[128] (low 4 bits), u8 qh[64]
//	      (high 2 bits), i8 scales[16] (one per 16 weights), half d;
//	      w = d*scales[i/16]*(q - 32), q in 0..63.
//	q8_0: 32 weights in 34 bytes: half d, i8 qs[32]; w = d*q.
const (
	Q4KBlockBytes = 144
	Q6KBlockBytes = 210
	QK8_0         = 32
	Q80BlockBytes = 2 + QK8_0
)

// WeightFormat is a weight block format: Block weights in Bytes bytes.
type WeightFormat struct {
	Name         string
	Block, Bytes int
}

// WeightFormats are the block formats DecodeWeightBlock reads.
var WeightFormats = map[string]WeightFormat{
	"q4_k": {"q4_k", QK_K, Q4KBlockBytes},
	"q6_k": {"q6_k", QK_K, Q6KBlockBytes},
	"q8_0": {"q8_0", QK8_0, Q80BlockBytes},
}

func half(b []byte) float64 { return float64(F16ToF32(binary.LittleEndian.Uint16(b))) }

// Q4KScaleMin returns the 6-bit scale and min of sub-block j (0..7) of a
// q4_k block's 12 scale bytes: j < 4 in the low 6 bits of bytes j and j+4;
// j >= 4 in the nibbles of byte j+4 with the top 2 bits of bytes j-4 (scale)
// and j (min) above them.
func Q4KScaleMin(sc []byte, j int) (scale, min int) {
	if j < 4 {
		return int(sc[j] & 63), int(sc[j+4] & 63)
	}
	return int(sc[j+4]&0x0F) | int(sc[j-4]>>6)<<4, int(sc[j+4]>>4) | int(sc[j]>>6)<<4
}

// DecodeWeightBlock decodes one block of format f into w (f.Block values,
// exact: every product of a half with the small integers of these formats,
// and q4_k's difference of two such products, fits float64's mantissa).
// mag[i] is the magnitude a float kernel's rounding error on w[i] is
// proportional to: |w[i]| for q6_k and q8_0, and for q4_k the two terms it
// is the difference of, |d*sc*q| + |dmin*m| (a kernel sums them
// separately: d*sc*sum(q*x) - dmin*m*sum(x)).
func DecodeWeightBlock(f string, blk []byte, w, mag []float64) {
	switch f {
	case "q4_k":
		d, dmin := half(blk[0:]), half(blk[2:])
		sc, qs := blk[4:16], blk[16:144]
		for j := 0; j < 8; j++ {
			s, m := Q4KScaleMin(sc, j)
			ds, mm := d*float64(s), dmin*float64(m)
			for l := 0; l < 32; l++ {
				q := qs[32*(j/2)+l]
				if j%2 == 1 {
					q >>= 4
				}
				v := ds * float64(q&15)
				w[32*j+l] = v - mm
				mag[32*j+l] = math.Abs(v) + math.Abs(mm)
			}
		}
	case "q6_k":
		ql, qh, sc, d := blk[0:128], blk[128:192], blk[192:208], half(blk[208:])
		for i := 0; i < QK_K; i++ {
			h, l := i/128, i%128 // half of the block, index within it
			s, e := l/32, l%32   // which of the four 32-runs, element in it
			lo := ql[64*h+32*(s%2)+e]
			if s >= 2 {
				lo >>= 4
			}
			q := int(lo&15) | int(qh[32*h+e]>>(2*s)&3)<<4
			v := d * float64(int8(sc[8*h+2*s+e/16])) * float64(q-32)
			w[i], mag[i] = v, math.Abs(v)
		}
	case "q8_0":
		d := half(blk[0:])
		for i := 0; i < QK8_0; i++ {
			v := d * float64(int8(blk[2+i]))
			w[i], mag[i] = v, math.Abs(v)
		}
	default:
		panic(fmt.Sprintf("ref.DecodeWeightBlock: unknown format %q", f))
	}
}

// DecodeWeights decodes rows x (K / block) blocks of format f.
func DecodeWeights(f string, b []byte, rows, K int) (w, mag []float64, err error) {
	wf, ok := WeightFormats[f]
	if !ok {
		return nil, nil, fmt.Errorf("ref: unknown weight block format %q", f)
	}
	if K%wf.Block != 0 || rows < 0 || len(b) != rows*K/wf.Block*wf.Bytes {
		return nil, nil, fmt.Errorf("ref: %d bytes of %s for %d rows of K=%d (K must be a multiple of %d; want %d bytes)", len(b), f, rows, K, wf.Block, rows*(K/wf.Block)*wf.Bytes)
	}
	w, mag = make([]float64, rows*K), make([]float64, rows*K)
	for i := 0; i < rows*K/wf.Block; i++ {
		DecodeWeightBlock(f, b[i*wf.Bytes:(i+1)*wf.Bytes], w[i*wf.Block:(i+1)*wf.Block], mag[i*wf.Block:(i+1)*wf.Block])
	}
	return w, mag, nil
}

// DecodeQ8_1 decodes rows of K/32 Q8_1 blocks (K a multiple of 32): x =
// d*qs, exact. The s field is not read: it is the sum of the unquantized
// inputs, which the weight formats here never need (q4_k's min term takes
// the sum of the quantized values, as MMVQ does).
func DecodeQ8_1(b []byte, rows, K int) ([]float64, error) {
	if K%QK8_1 != 0 || rows < 0 || len(b) != rows*K/QK8_1*Q81BlockBytes {
		return nil, fmt.Errorf("ref: %d bytes of q8_1 for %d rows of K=%d (K must be a multiple of 32; want %d bytes)", len(b), rows, K, rows*(K/QK8_1)*Q81BlockBytes)
	}
	x := make([]float64, rows*K)
	for i := 0; i < rows*K/QK8_1; i++ {
		blk := b[i*Q81BlockBytes:]
		d := half(blk)
		for j := 0; j < QK8_1; j++ {
			x[i*QK8_1+j] = d * float64(int8(blk[4+j]))
		}
	}
	return x, nil
}

// MMVQ is the quantized-weight GEMV: Y[t][n] = sum_k W[n][k] * X[t][k] for
// W, N rows of K/block blocks of format f (a GGUF tensor's bytes as they
// are), and X, T rows of K/32 Q8_1 blocks; both decoded exactly and the dot
// products taken in float64. mag[t][n] = sum_k mag_w[n][k] * |X[t][k]|
// (DecodeWeightBlock's magnitudes): what a float32 kernel's rounding error
// is proportional to. Both are T x N, row-major.
func MMVQ(f string, w, x []byte, T, N, K int) (want, mag []float64, err error) {
	wv, wm, err := DecodeWeights(f, w, N, K)
	if err != nil {
		return nil, nil, err
	}
	xv, err := DecodeQ8_1(x, T, K)
	if err != nil {
		return nil, nil, err
	}
	want, mag = make([]float64, T*N), make([]float64, T*N)
	for t := 0; t < T; t++ {
		xr := xv[t*K : (t+1)*K]
		for n := 0; n < N; n++ {
			wr, mr := wv[n*K:(n+1)*K], wm[n*K:(n+1)*K]
			var acc, m float64
			for k, xk := range xr {
				acc += wr[k] * xk
				m += mr[k] * math.Abs(xk)
			}
			want[t*N+n], mag[t*N+n] = acc, m
		}
	}
	return want, mag, nil
}
