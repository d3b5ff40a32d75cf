package verify

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/kgen-dev/kgen/runtime/ref"
)

// encode draws n random values of element type typ in [-0.25, 1) (never all
// zero), returning the encoded bytes and the exact decoded float32 values.
// Mixed signs with a positive mean keep dot products away from total
// cancellation, so a relative-error tolerance measures the kernel and not
// the conditioning of the data.
func encode(rng *rand.Rand, typ string, n int) ([]byte, []float32) {
	vals := make([]float32, n)
	var b []byte
	switch typ {
	case "f32":
		b = make([]byte, 4*n)
		for i := range vals {
			vals[i] = float32(rng.Float64()*1.25 - 0.25)
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(vals[i]))
		}
	case "f16", "bf16":
		b = make([]byte, 2*n)
		for i := range vals {
			f := float32(rng.Float64()*1.25 - 0.25)
			var h uint16
			if typ == "f16" {
				h = ref.F32ToF16(f)
				vals[i] = ref.F16ToF32(h)
			} else {
				h = ref.F32ToBF16(f)
				vals[i] = ref.BF16ToF32(h)
			}
			binary.LittleEndian.PutUint16(b[2*i:], h)
		}
	case "e4m3":
		b = make([]byte, n)
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
			vals[i] = ref.E4M3ToF32(c)
		}
	default:
		panic("verify: unknown element type " + typ)
	}
	return b, vals
}

// scales draws per-row scales in [0.5, 2).
func scales(rng *rand.Rand, n int) ([]byte, []float32) {
	b := make([]byte, 4*n)
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(0.5 + 1.5*rng.Float64())
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v[i]))
	}
	return b, v
}

func floats(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}
