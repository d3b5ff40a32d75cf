package bench

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/ref"
)

// TestVulkanChainOnLavapipe times an mmvq case alone and as its decode
// step (quant_q8_1 on f32 activations, then the measured pick) with the
// Vulkan timer, then checks every copy: the quantizer's output, bound as
// the GEMV's X, is ref.QuantizeQ8_1 of that copy's activations byte for
// byte, and the GEMV's Y is ref.MMVQ of that copy's W and X within the
// family's bound (bindings, barrier and rotation right).
func TestVulkanChainOnLavapipe(t *testing.T) {
	t.Setenv(kruntime.TuneCacheEnv, "off")
	d, pipes := openLavapipe(t)
	dev := pipes.Device()
	tm := &VulkanTimer{Dev: d, R: pipes, Reps: 2, Rng: rand.New(rand.NewPCG(5, 6)), RotateBytes: 256 << 10}
	defer tm.Close()

	c := Case{Family: "mmvq", Model: "m", Layer: "l", N: 37, K: 512, M: 2, Dtype: "q4_k"}
	m, err := Measure(tm, dev, c.Op(), nil)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := MeasurePair(tm, dev, m, "f32")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pr.Producer, "quant_q8_1_f32_") || pr.Consumer != m.Tuned || pr.US <= 0 || pr.ProducerUS <= 0 || pr.Skipped != "" {
		t.Fatalf("%+v", pr)
	}
	xq, w, y, xf := 2*512/32*36, 37*512/256*144, 2*37*4, 2*512*4
	if per := int64(xq + w + y + xf); pr.RotatedBytes != int64(tm.pool.n)*per || tm.pool.n < 2 {
		t.Errorf("rotated %d bytes over %d copies, want %d a copy", pr.RotatedBytes, tm.pool.n, per)
	}
	t.Logf("%+v (alone: heuristic %s %.1f us, tuned %s %.1f us)", pr, m.Heuristic, m.HeuristicUS, m.Tuned, m.TunedUS)
	bound, err := kruntime.Bound(m.Variants[m.Tuned], c.Op())
	if err != nil {
		t.Fatal(err)
	}
	// Pool slots: the consumer's W, X, Y, partial, counter, then the
	// quantizer's X.
	for i := 0; i < tm.pool.n; i++ {
		bs := tm.pool.buffers(i)
		x := ref.Floats(download(t, bs[5], xf))
		var q []byte
		for r := 0; r < c.M; r++ {
			q = append(q, ref.QuantizeQ8_1(x[r*c.K:(r+1)*c.K], c.K)...)
		}
		if got := download(t, bs[1], xq); string(got) != string(q) {
			t.Fatalf("copy %d: X differs from ref.QuantizeQ8_1 at byte %d", i, ref.FirstByteMismatch(got, q))
		}
		want, mag, err := ref.MMVQ("q4_k", download(t, bs[0], w), q, c.M, c.N, c.K)
		if err != nil {
			t.Fatal(err)
		}
		if e := ref.RelL2Mag(ref.Floats(download(t, bs[2], y)), want, mag); !(e < bound) {
			t.Fatalf("copy %d: relative error %g, bound %g", i, e, bound)
		}
	}

	// The record: the case's fields and the pair's, in one JSON object.
	b, err := json.Marshal(WithPair(c.Record(m), pr))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tuned_us", "heuristic", "N", "pair_us", "pair_producer", "pair_consumer", "producer_us", "pair_act"} {
		if got[k] == nil {
			t.Errorf("JSON lacks %s: %s", k, b)
		}
	}
	if l := WithPair(c.Record(m), pr).Line(); !strings.Contains(l, " pair f32 "+pr.Producer) {
		t.Errorf("line %q", l)
	}
}

// TestCheckPair: --pair needs a fed_by family and an act its producer takes.
func TestCheckPair(t *testing.T) {
	if err := CheckPair([]string{"mmvq"}, "bf16"); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		fams []string
		act  string
		want string
	}{
		{[]string{"mmvq", "gemv"}, "f32", "family gemv has no fed_by in templates/kernels.yaml: nothing to time before it (families with one: mmvq)"},
		{[]string{"mmvq"}, "q8_0", `"q8_0": mmvq's X comes from quant_q8_1, which takes bf16, f16, f32`},
	} {
		if err := CheckPair(c.fams, c.act); err == nil || err.Error() != c.want {
			t.Errorf("%v %s: %v, want %s", c.fams, c.act, err, c.want)
		}
	}
}
