package verify

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/ref"
	"github.com/kgen-dev/kgen/runtime/table"
)

// TestE4M3EveryCode runs the fp8 e4m3 gemv blobs on lavapipe with row n's
// weights all code n (every one of the 256, NaN included), activations 1
// and scales 1: Y[n] is K copies of code n's value summed, exact in any
// order (at most 13 + 4 significant bits), so it must equal K times
// runtime/ref's E4M3ToF32(n) bit for bit. The random verify cases compare
// with a tolerance; this pins the decode itself, subnormals and signed zero
// included (-0 sums to +0), for one variant per dtype, layout, pack and split count.
func TestE4M3EveryCode(t *testing.T) {
	r := openLavapipe(t)
	seen := map[string]bool{}
	ran := 0
	for i := range generated.Variants {
		v := &generated.Variants[i]
		if v.Backend != "vulkan" || v.Arch != "llvmpipe" || v.Family != "gemv" || !strings.HasPrefix(v.Param("dtype"), "fp8e4m3") {
			continue
		}
		key := fmt.Sprintf("%s/%s/p%d/s%d", v.Param("dtype"), v.Param("layout"), v.IntParam("pack"), v.IntParam("splits"))
		if seen[key] {
			continue
		}
		seen[key] = true
		ran++
		t.Run(key, func(t *testing.T) { checkEveryCode(t, r, v) })
	}
	if ran == 0 {
		t.Fatal("no fp8 e4m3 gemv variants for llvmpipe in the table")
	}
}

func checkEveryCode(t *testing.T, r Runner, v *table.Variant) {
	const n = 256
	// The least K the variant accepts: split-K needs a full pass per slice.
	k := v.IntParam("pack")
	if v.Param("layout") == "splitk" {
		k = v.IntParam("splits") * v.IntParam("wg") * v.IntParam("pack")
	}
	op := kruntime.Op{Family: v.Family, Dtype: v.Param("dtype"), M: 1, N: n, K: k}
	l, err := kruntime.Plan(v, r.Device(), op)
	if err != nil {
		t.Fatal(err)
	}
	var one uint16 // the activation 1.0
	for _, d := range kruntime.Dtypes() {
		if d.Name == v.Param("dtype") {
			switch d.Act {
			case "bf16":
				one = ref.F32ToBF16(1)
			case "f16":
				one = ref.F32ToF16(1)
			}
		}
	}
	if one == 0 {
		t.Fatalf("dtype %s: no 16-bit activation type", v.Param("dtype"))
	}
	inputs := map[string][]byte{}
	for _, b := range l.Buffers {
		if b.Dir != "in" {
			continue
		}
		buf := make([]byte, b.Size)
		switch b.Name {
		case "W":
			for i := range buf {
				buf[i] = byte(i / k)
			}
		case "X":
			for i := 0; i+1 < len(buf); i += 2 {
				binary.LittleEndian.PutUint16(buf[i:], one)
			}
		case "scale":
			for i := 0; i+3 < len(buf); i += 4 {
				binary.LittleEndian.PutUint32(buf[i:], math.Float32bits(1))
			}
		default:
			t.Fatalf("unexpected input buffer %s", b.Name)
		}
		inputs[b.Name] = buf
	}
	got, err := r.Run(l, inputs, 0x7FC00000, 0)
	if err != nil {
		t.Fatal(err)
	}
	y := ref.Floats(got)
	if len(y) != n {
		t.Fatalf("%d outputs, want %d", len(y), n)
	}
	bad := 0
	var zero float32 // sums start at +0: code 0x80 (-0) sums to +0
	for c := 0; c < n; c++ {
		want := zero + float32(k)*ref.E4M3ToF32(uint8(c))
		ok := math.Float32bits(y[c]) == math.Float32bits(want) || (math.IsNaN(float64(want)) && math.IsNaN(float64(y[c])))
		if !ok {
			if bad++; bad <= 4 {
				t.Errorf("%s, K %d: code %#02x gives %g (%#08x), want %g (%#08x)", v.Name, k, c, y[c], math.Float32bits(y[c]), want, math.Float32bits(want))
			}
		}
	}
	if bad > 4 {
		t.Errorf("%s: %d of 256 codes wrong", v.Name, bad)
	}
}
