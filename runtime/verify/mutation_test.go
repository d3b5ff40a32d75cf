package verify

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/ref"
	"github.com/kgen-dev/kgen/runtime/table"
)

// cpuGemv is a Runner that computes GEMV launches on the CPU the way a
// kernel does (float32 products and sequential float32 sums), optionally
// with a bug: it shows that the contract's bound catches wrong kernels and
// passes right ones, at every dtype, without a device.
type cpuGemv struct {
	dev    kruntime.Device
	mutate string // "", "drop last pack", "skip token", "swap rows"
}

func (r *cpuGemv) Device() kruntime.Device { return r.dev }
func (r *cpuGemv) Name() string            { return "CPU GEMV (" + r.mutate + ")" }

func (r *cpuGemv) Run(l *kruntime.Launch, in map[string][]byte, poison uint32, guard int) ([]byte, error) {
	var dt table.Dtype
	for _, d := range kruntime.Dtypes() {
		if d.Name == l.Variant.Param("dtype") {
			dt = d
		}
	}
	T, N, K, pack := l.Op.M, l.Op.N, l.Op.K, l.Variant.IntParam("pack")
	elem := func(typ string, b []byte, i int) float32 {
		switch typ {
		case "f32":
			return math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		case "f16":
			return ref.F16ToF32(binary.LittleEndian.Uint16(b[2*i:]))
		case "bf16":
			return ref.BF16ToF32(binary.LittleEndian.Uint16(b[2*i:]))
		case "e4m3":
			return ref.E4M3ToF32(b[i])
		}
		panic(typ)
	}
	// Block formats (weight_block/act_block > 1) decode whole rows through
	// runtime/ref; "the last pack" is then the last block.
	decoded := func(typ string, block, bytes int, b []byte, rows int) func(int) float32 {
		if block <= 1 {
			return func(i int) float32 { return elem(typ, b, i) }
		}
		var v []float64
		var err error
		if typ == "q8_1" {
			v, err = ref.DecodeQ8_1(b[:rows*K/block*bytes], rows, K)
		} else {
			v, _, err = ref.DecodeWeights(typ, b[:rows*K/block*bytes], rows, K)
		}
		if err != nil {
			panic(err)
		}
		return func(i int) float32 { return float32(v[i]) }
	}
	wAt := decoded(dt.Weight, dt.WeightBlock, dt.WeightBytes, in["W"], N)
	xAt := decoded(dt.Act, dt.ActBlock, dt.ActBytes, in["X"], T)
	out := l.Output()
	y := make([]byte, out.Size+guard)
	for i := 0; i+4 <= len(y); i += 4 {
		binary.LittleEndian.PutUint32(y[i:], poison)
	}
	kEnd := K
	if r.mutate == "drop last pack" {
		kEnd = K - max(pack, dt.WeightBlock)
	}
	for t := 0; t < T; t++ {
		for n := 0; n < N; n++ {
			var acc float32
			for k := 0; k < kEnd; k++ {
				acc += wAt(n*K+k) * xAt(t*K+k)
			}
			if dt.Scaled {
				acc *= elem("f32", in["scale"], n)
			}
			if r.mutate == "skip token" && t == T-1 {
				acc = 0 // the last token's outputs written but never computed
			}
			m := n
			if r.mutate == "swap rows" && N > 1 && n < 2 {
				m = 1 - n
			}
			binary.LittleEndian.PutUint32(y[4*(t*N+m):], math.Float32bits(acc))
		}
	}
	return y, nil
}

// TestBoundCatchesMutations: on every dtype, a CPU GEMV passes every
// verify case of its variants, and one that drops the last pack of K, skips
// the last token or swaps two rows fails each variant.
func TestBoundCatchesMutations(t *testing.T) {
	dev, err := kruntime.ArchDevice("llvmpipe")
	if err != nil {
		t.Fatal(err)
	}
	dev.MaxWorkgroup = 1024
	// Per dtype, one variant per token count: every T the cases use.
	var vs []table.Variant
	seen := map[string]bool{}
	for _, v := range generated.Variants {
		fam, err := kruntime.Contract(v.Family)
		if err != nil {
			t.Fatal(err)
		}
		key := v.Param("dtype") + v.Param("tokens")
		if v.Backend != "vulkan" || v.Arch != dev.Arch || fam.Verify.Compare != "relative" || seen[key] {
			continue
		}
		seen[key] = true
		vs = append(vs, v)
	}
	if len(vs) < 5 {
		t.Fatalf("only %d variants", len(vs))
	}
	for _, mut := range []string{"", "drop last pack", "skip token", "swap rows"} {
		rep, err := Run(&cpuGemv{dev: dev, mutate: mut}, vs, Options{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if mut != "" {
			want = len(vs)
		}
		if rep.Verified != len(vs) || rep.Failed != want {
			t.Errorf("%s: %s; want %d failed\n%s", rep.Device, rep.Summary(), want, rep.FailureLines())
			continue
		}
		if mut != "" && !strings.Contains(rep.FailureLines(), "relative L2 error") {
			t.Errorf("%s: %s", mut, rep.FailureLines())
		}
		t.Logf("%-15s %s", mut, rep.Summary())
	}
}
