// Package ref holds CPU reference kernels and number formats for kgen.
// Everything here is written for exactness and clarity, not speed: generated
// GPU kernels are checked against these functions.
package ref

import "math"

// roundMinifloat rounds a finite, non-negative float32 (given by its bits)
// to the nearest code of a binary format with the given exponent bias and
// mantissa width, ties to even. The code is (E<<mbits | M) and may exceed
// the format's range: because a mantissa carry ripples into the exponent,
// codes are monotone in the value and callers clamp overflow themselves.
// The formats served here (f16, e4m3) have mbits < 23 and minimum exponents
// far above float32's, so float32 subnormals always round to 0.
func roundMinifloat(bits uint32, bias, mbits int) uint32 {
	exp := int(bits >> 23)
	mant := bits & 0x7fffff
	if exp == 0 {
		return 0 // float32 zero or subnormal: below half the smallest code
	}
	e := exp - 127
	minExp := 1 - bias
	if e >= minExp {
		shift := uint(23 - mbits)
		code := uint32(e+bias)<<mbits | mant>>shift
		return roundShifted(code, mant, shift)
	}
	// Subnormal target: the value is m * 2^(e-23) with the implicit bit; the
	// subnormal unit is 2^(minExp-mbits).
	m := mant | 1<<23
	shift := uint(23 + minExp - mbits - e)
	if shift > 24 {
		return 0 // value < half the smallest subnormal (m < 2^24)
	}
	return roundShifted(m>>shift, m, shift)
}

// roundShifted applies round-to-nearest-even to code = m >> shift using the
// bits of m that were shifted out.
func roundShifted(code, m uint32, shift uint) uint32 {
	rem := m & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rem > half || (rem == half && code&1 == 1) {
		code++
	}
	return code
}

// F16ToF32 decodes an IEEE binary16 value. Widening is exact; a signalling
// NaN comes back quiet (as x86 F16C and GPU conversions do) with its payload.
func F16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f && mant != 0:
		return math.Float32frombits(sign | 0x7fc00000 | mant<<13)
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000)
	case exp == 0:
		// Subnormal or zero: mant * 2^-24, exact in float32.
		f := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// F32ToF16 rounds to IEEE binary16, nearest even. Values that round past
// 65504 become infinity; NaN stays NaN, quieted, keeping the top payload bits.
func F32ToF16(f float32) uint16 {
	bits := math.Float32bits(f)
	sign := uint16(bits>>16) & 0x8000
	mag := bits & 0x7fffffff
	switch {
	case mag > 0x7f800000:
		return sign | 0x7e00 | uint16(mag>>13)&0x3ff
	case mag == 0x7f800000:
		return sign | 0x7c00
	}
	code := roundMinifloat(mag, 15, 10)
	if code >= 0x7c00 {
		return sign | 0x7c00
	}
	return sign | uint16(code)
}

// BF16ToF32 decodes bfloat16: it is the upper half of a float32. A
// signalling NaN comes back quiet.
func BF16ToF32(b uint16) float32 {
	bits := uint32(b) << 16
	if bits&0x7fffffff > 0x7f800000 {
		bits |= 0x00400000
	}
	return math.Float32frombits(bits)
}

// F32ToBF16 rounds to bfloat16, nearest even; overflow reaches infinity
// through the carry. NaN is truncated with the quiet bit set so that dropping
// low payload bits can never turn it into infinity.
func F32ToBF16(f float32) uint16 {
	bits := math.Float32bits(f)
	if bits&0x7fffffff > 0x7f800000 {
		return uint16(bits>>16) | 0x0040
	}
	return uint16((bits + 0x7fff + (bits>>16)&1) >> 16)
}

// E4M3ToF32 decodes OCP fp8 E4M3FN: bias 7, no infinities, 0x7F/0xFF NaN.
func E4M3ToF32(b uint8) float32 {
	exp := int(b>>3) & 0xf
	mant := int(b & 7)
	if exp == 0xf && mant == 7 {
		return float32(math.NaN())
	}
	var f float32
	if exp == 0 {
		f = float32(mant) / 512 // subnormal: mant * 2^-9
	} else {
		f = float32(8+mant) * float32(math.Ldexp(1, exp-10)) // (1+m/8)*2^(e-7)
	}
	if b&0x80 != 0 {
		f = -f
	}
	return f
}

// E4M3Max is the largest finite E4M3FN magnitude.
const E4M3Max = 448

// F32ToE4M3 rounds to OCP E4M3FN, nearest even. Choice: finite values that
// would round beyond 448 saturate to ±448 (the format has no infinity, and
// this matches CUDA's __NV_SATFINITE conversion used for fp8 weights);
// ±Inf saturates the same way. NaN maps to 0x7F whatever its sign.
func F32ToE4M3(f float32) uint8 {
	bits := math.Float32bits(f)
	sign := uint8(bits>>24) & 0x80
	mag := bits & 0x7fffffff
	if mag > 0x7f800000 {
		return 0x7f
	}
	if mag == 0x7f800000 {
		return sign | 0x7e
	}
	code := roundMinifloat(mag, 7, 3)
	if code > 0x7e {
		return sign | 0x7e
	}
	return sign | uint8(code)
}

// DecodeF16 decodes a slice of binary16 values.
func DecodeF16(h []uint16) []float32 {
	out := make([]float32, len(h))
	for i, v := range h {
		out[i] = F16ToF32(v)
	}
	return out
}

// DecodeBF16 decodes a slice of bfloat16 values.
func DecodeBF16(b []uint16) []float32 {
	out := make([]float32, len(b))
	for i, v := range b {
		out[i] = BF16ToF32(v)
	}
	return out
}

// DecodeE4M3 decodes a slice of E4M3FN bytes.
func DecodeE4M3(b []byte) []float32 {
	out := make([]float32, len(b))
	for i, v := range b {
		out[i] = E4M3ToF32(v)
	}
	return out
}
