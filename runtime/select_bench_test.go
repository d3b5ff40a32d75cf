package runtime

import (
	"errors"
	"testing"
)

// BenchmarkSelect is one heuristic selection for a decode GEMV on sm90 (the
// arch with the most variants) and for a quantizer: the per-call cost of
// Select without the tuning cache or KGEN_FORCE.
func BenchmarkSelect(b *testing.B) {
	dev, err := ArchDevice("sm90")
	if err != nil {
		b.Fatal(err)
	}
	for _, op := range []Op{
		{Family: "gemv", Dtype: "bf16", M: 1, N: 4096, K: 4096},
		{Family: "gemv", Dtype: "fp8e4m3_bf16", M: 8, N: 151936, K: 5120},
		{Family: "quant_q8_1", Dtype: "f32", M: 1, N: 1, K: 4096},
	} {
		b.Run(op.Family+"_"+op.Dtype, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := SelectWith(dev, op, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSelectRefusesForceOfUnknownFamily: a KGEN_FORCE naming no family is
// an error from Select itself (not only from gen explain), whatever the
// op's family: a typo must not silently compare a configuration with itself.
func TestSelectRefusesForceOfUnknownFamily(t *testing.T) {
	dev, err := ArchDevice("gfx1200")
	if err != nil {
		t.Fatal(err)
	}
	op := Op{Family: "gemv", Dtype: "bf16", M: 1, N: 4096, K: 4096}
	if _, err := SelectWith(dev, op, ParseOverride("gmv:pack=4")); !errors.Is(err, ErrForce) {
		t.Fatalf("KGEN_FORCE=gmv:pack=4: got %v, want an ErrForce", err)
	}
	// A valid override of another family leaves this op's pick alone.
	ch, err := SelectWith(dev, op, ParseOverride("quant_q8k:tile=sg"))
	if err != nil || ch.Forced != "" {
		t.Fatalf("another family's override: %v, forced %q", err, ch.Forced)
	}
}
