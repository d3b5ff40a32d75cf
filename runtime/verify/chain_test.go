package verify

import (
	"math/rand/v2"
	"testing"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/ref"
)

// TestChainOnLavapipe runs the decode step of each weight format, the
// quantizer and the quantized-weight GEMV through runtime.SelectChain on
// lavapipe (one submission, the quantizer's Y bound as the GEMV's X, X
// poisoned first), and compares the final Y with the references: the
// activations quantized by ref.QuantizeQ8_1, then ref.MMVQ, within the
// mmvq family's bound. Several consumer tiles are forced, the producer's
// pick kept.
func TestChainOnLavapipe(t *testing.T) {
	t.Setenv(kruntime.TuneCacheEnv, "off")
	r := openLavapipe(t)
	dev := r.Device()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		dtype, act, force string
		m, n, k           int
	}{
		{"q4_k", "f32", "", 3, 37, 2048},
		{"q6_k", "f32", "", 1, 37, 2048},
		{"q8_0", "f32", "", 2, 37, 2080},
		{"q4_k", "bf16", "mmvq:tile=sk4", 1, 5, 8192},
		{"q6_k", "f16", "mmvq:tile=wg64", 4, 9, 1024},
	} {
		t.Setenv(kruntime.ForceEnv, c.force)
		op := kruntime.Op{Family: "mmvq", Dtype: c.dtype, M: c.m, N: c.n, K: c.k}
		ch, err := kruntime.SelectChain(dev, op, c.act)
		if err != nil {
			t.Fatalf("%s act %s: %v", op, c.act, err)
		}
		p, cons := ch.Steps[0], ch.Consumer()
		xb, x, err := ref.Random(rng, c.act, c.m*c.k)
		if err != nil {
			t.Fatal(err)
		}
		f := ref.WeightFormats[c.dtype]
		w, _, err := ref.RandomWeightBlocks(rng, c.dtype, c.n*c.k/f.Block)
		if err != nil {
			t.Fatal(err)
		}
		padded := append(append([]byte{}, w...), make([]byte, cons.Launch.Buffer("W").Size-len(w))...)
		got, err := r.RunChain(ch, []map[string][]byte{{"X": xb}, {"W": padded}}, 0x7FC00000)
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		var q []byte
		for row := 0; row < c.m; row++ {
			q = append(q, ref.QuantizeQ8_1(x[row*c.k:(row+1)*c.k], c.k)...)
		}
		want, mag, err := ref.MMVQ(c.dtype, w, q, c.m, c.n, c.k)
		if err != nil {
			t.Fatal(err)
		}
		bound, err := kruntime.Bound(cons.Choice.Variant, op)
		if err != nil {
			t.Fatal(err)
		}
		e := ref.RelL2Mag(ref.Floats(got), want, mag)
		if !(e < bound) {
			t.Errorf("%s act %s, %s then %s: relative L2 error %.3g, bound %.3g", op, c.act, p.Choice.Variant.Name, cons.Choice.Variant.Name, e, bound)
		} else {
			t.Logf("%s act %s, %s then %s: relative L2 error %.3g (bound %.3g)", op, c.act, p.Choice.Variant.Name, cons.Choice.Variant.Name, e, bound)
		}
	}
}
