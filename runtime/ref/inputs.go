package ref

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
)

// Random draws n random values of element type typ in [-0.25, 1) (e4m3:
// any finite pattern), returning the encoded bytes and the exact decoded
// float32 values. Mixed signs with a positive mean keep dot products away
// from total cancellation, so a relative-error bound measures the kernel
// and not the conditioning of the data.
func Random(rng *rand.Rand, typ string, n int) ([]byte, []float32, error) {
	if typ == "e4m3" {
		b, vals := make([]byte, n), make([]float32, n)
		for i := range vals {
			// Any finite pattern, subnormals included (0x7F/0xFF are NaN),
			// negative one time in four.
			c := uint8(rng.IntN(128))
			for c == 0x7F {
				c = uint8(rng.IntN(128))
			}
			if rng.IntN(4) == 0 {
				c |= 0x80
			}
			b[i] = c
			vals[i] = E4M3ToF32(c)
		}
		return b, vals, nil
	}
	if typ != "f32" && typ != "f16" && typ != "bf16" {
		return nil, nil, fmt.Errorf("ref: no random inputs of element type %q", typ)
	}
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = float32(rng.Float64()*1.25 - 0.25)
	}
	return Encode(typ, vals)
}

// Scales draws n per-row f32 scales in [0.5, 2).
func Scales(rng *rand.Rand, n int) ([]byte, []float32) {
	b := make([]byte, 4*n)
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(0.5 + 1.5*rng.Float64())
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v[i]))
	}
	return b, v
}

// Encode encodes float32 values as element type typ (f32, f16, bf16),
// returning the bytes and the exactly decoded values a reference sees.
func Encode(typ string, vals []float32) ([]byte, []float32, error) {
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
				h = F32ToF16(f)
				dec[i] = F16ToF32(h)
			} else {
				h = F32ToBF16(f)
				dec[i] = BF16ToF32(h)
			}
			binary.LittleEndian.PutUint16(b[2*i:], h)
		}
	default:
		return nil, nil, fmt.Errorf("ref: cannot encode element type %q", typ)
	}
	return b, dec, nil
}

// Floats decodes little-endian float32s.
func Floats(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}
