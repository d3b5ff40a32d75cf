package ref

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Block geometry of the activation formats (see
// docs/quant-formats.md).
const (
	QK_K          = 256           // floats per Q8_K superblock
	Q8KBlockBytes = 4 + QK_K + 32 // {f32 d; int8 qs[256]; int16 bsums[16]}
	QK8_1         = 32            // floats per Q8_1 block
	Q81BlockBytes = 4 + QK8_1     // {half d; half s; int8 qs[32]}
)

// QuantizeQ8K quantizes a row to Q8_K exactly as ggml's
// quantize_row_q8_K_ref, producing 292 little-endian bytes per 256 floats.
// Degenerate blocks (tiny amax, Inf, NaN) follow the bit trick literally.
func QuantizeQ8K(x []float32) ([]byte, error) {
	if len(x)%QK_K != 0 {
		return nil, fmt.Errorf("ref.QuantizeQ8K: length %d is not a multiple of %d", len(x), QK_K)
	}
	nb := len(x) / QK_K
	out := make([]byte, nb*Q8KBlockBytes)
	for b := 0; b < nb; b++ {
		quantizeQ8KBlock(x[b*QK_K:(b+1)*QK_K], out[b*Q8KBlockBytes:(b+1)*Q8KBlockBytes])
	}
	return out, nil
}

func quantizeQ8KBlock(x []float32, y []byte) {
	// The first index reaching the maximum |x| sets the sign (strict >);
	// NaN never compares greater, so it never becomes max.
	var amax, maxv float32
	for _, v := range x {
		ax := float32(math.Abs(float64(v)))
		if ax > amax {
			amax, maxv = ax, v
		}
	}
	if amax == 0 {
		return // d = +0, qs = 0, and (by project choice) bsums = 0: y is zeroed
	}
	iscale := -127 / maxv // float32 division, correctly rounded; may be ±Inf or ±0
	qs := y[4 : 4+QK_K]
	for j, v := range x {
		q := nearestInt(float32(iscale * v))
		q = min(127, q)
		qs[j] = byte(int8(q)) // the C int8 store keeps the low 8 bits
	}
	for g := 0; g < QK_K/16; g++ {
		var sum int16
		for _, q := range qs[16*g : 16*g+16] {
			sum += int16(int8(q)) // sums of stored values; |sum| <= 2048
		}
		binary.LittleEndian.PutUint16(y[4+QK_K+2*g:], uint16(sum))
	}
	d := 1 / iscale
	binary.LittleEndian.PutUint32(y[0:], math.Float32bits(d))
}

// nearestInt is ggml's nearest_int: adding 1.5*2^23 puts the integer part of
// f in the low mantissa bits, rounding half to even. The caller passes an
// already-rounded float32 product (the explicit float32 conversion forbids
// Go from fusing the multiply into the add, per the Go spec).
// ±Inf gives -4194304 (mantissa bits 0). NaN gives 0 as the reference doc
// defines; that is what x86 produces for its default NaN (mantissa 0x400000),
// the NaN made by 0*Inf. A NaN input with a non-zero payload would, in real
// x86 ggml, yield its low payload bits instead; we fix it to 0 so the result
// is independent of payload propagation, which differs between CPUs and GPUs.
func nearestInt(f float32) int32 {
	if f != f {
		return 0
	}
	val := f + 12582912
	return int32(math.Float32bits(val)&0x007fffff) - 0x00400000
}

// QuantizeQ8_1 quantizes the first K floats of x to Q8_1 as the CUDA kernel
// quantize_q8_1 does (the GPU definition, where s is the sum of the
// unquantized inputs), padding with zeros to a multiple of 32. Each block is
// 36 bytes: half d, half s, int8 qs[32]. K > len(x) panics.
func QuantizeQ8_1(x []float32, K int) []byte {
	if K < 0 || K > len(x) {
		panic(fmt.Sprintf("ref.QuantizeQ8_1: K=%d with len(x)=%d", K, len(x)))
	}
	nb := (K + QK8_1 - 1) / QK8_1
	out := make([]byte, nb*Q81BlockBytes)
	var blk [QK8_1]float32
	for b := 0; b < nb; b++ {
		for i := range blk {
			k := b*QK8_1 + i
			if k < K {
				blk[i] = x[k]
			} else {
				blk[i] = 0 // lanes past K read 0.0f
			}
		}
		quantizeQ81Block(&blk, out[b*Q81BlockBytes:(b+1)*Q81BlockBytes])
	}
	return out
}

func quantizeQ81Block(x *[QK8_1]float32, y []byte) {
	// warp_reduce_max uses fmaxf, which drops NaN operands; the result is the
	// largest non-NaN |x| in any order (NaN only if all lanes are NaN).
	amax := float32(math.NaN())
	for _, v := range x {
		ax := float32(math.Abs(float64(v)))
		if amax != amax || ax > amax {
			amax = ax
		}
	}
	d := amax / 127
	for i, v := range x {
		var q int8
		if amax != 0 {
			q = cudaFloatToInt8(roundf(v / d))
		}
		y[4+i] = byte(q)
	}
	s := warpSumXor(x)
	binary.LittleEndian.PutUint16(y[0:], cudaHalf(d))
	binary.LittleEndian.PutUint16(y[2:], cudaHalf(s))
}

// warpSumXor simulates `sum += __shfl_xor_sync(~0, sum, m)` for m = 16..1 on
// a 32-lane warp: each step computes every lane's new value from the old ones
// as v[i] + v[i^m]. All lanes end equal; lane 0 is returned.
func warpSumXor(x *[QK8_1]float32) float32 {
	v := *x
	for m := QK8_1 / 2; m >= 1; m /= 2 {
		var nv [QK8_1]float32
		for i := range v {
			nv[i] = v[i] + v[i^m]
		}
		v = nv
	}
	return v[0]
}

// roundf is C roundf: half away from zero. Rounding the exact float64 image
// of a float32 to an integer and converting back is exact.
func roundf(f float32) float32 {
	return float32(math.Round(float64(f)))
}

// cudaFloatToInt8 models the conversion of the float roundf result to int8_t
// in the CUDA kernel. It only matters for degenerate blocks: amax at most
// 2.3e-41 (16065 subnormal ulps), where d is a coarse subnormal or 0 and
// x/d can exceed 127.5, or Inf/NaN inputs. Model (an assumption, not
// verified on hardware): NVPTX promotes the i8 result to a 16-bit
// cvt.rzi.s16.f32, which saturates to the int16 range and maps NaN to 0, and
// the byte store then keeps the low 8 bits.
func cudaFloatToInt8(f float32) int8 {
	var v int16
	switch {
	case f != f:
		v = 0
	case f >= math.MaxInt16:
		v = math.MaxInt16
	case f <= math.MinInt16:
		v = math.MinInt16
	default:
		v = int16(f)
	}
	return int8(v)
}

// cudaHalf converts to half as __float2half does: round to nearest even,
// with every NaN becoming the canonical NaN 0x7FFF (so NaN blocks do not
// depend on payload propagation).
func cudaHalf(f float32) uint16 {
	if f != f {
		return 0x7fff
	}
	return F32ToF16(f)
}
