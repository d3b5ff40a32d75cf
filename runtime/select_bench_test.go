package runtime

import (
	"errors"
	"testing"
	"time"
)

// BenchmarkSelect is one selection for a decode GEMV on sm90 (the arch with
// the most variants) and for a quantizer: "uncached" evaluates every
// candidate's rules (selectUncached), "memo" is SelectWith's per-call cost
// once the (device, op) was selected before (memo.go), and "select" is
// Select itself (KGEN_FORCE read, tuning cache consulted), the per-launch
// path.
func BenchmarkSelect(b *testing.B) {
	dev, err := ArchDevice("sm90")
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv(TuneCacheEnv, "off")
	for _, op := range []Op{
		{Family: "gemv", Dtype: "bf16", M: 1, N: 4096, K: 4096},
		{Family: "gemv", Dtype: "fp8e4m3_bf16", M: 8, N: 151936, K: 5120},
		{Family: "quant_q8_1", Dtype: "f32", M: 1, N: 1, K: 4096},
	} {
		b.Run(op.Family+"_"+op.Dtype+"/uncached", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := selectUncached(dev, op, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(op.Family+"_"+op.Dtype+"/memo", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := SelectWith(dev, op, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(op.Family+"_"+op.Dtype+"/select", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Select(dev, op); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSelectMemo: a memoized answer is the uncached one; every call gets
// its own Choice (changing one leaves the next answer alone); errors are
// memoized as they are; an override is part of the key; a tuned entry
// added after the first Select is used by the next (the tuning cache is
// applied after the memo); and a repeated Select of the largest group costs
// under 20 us.
func TestSelectMemo(t *testing.T) {
	dev, err := ArchDevice("sm90")
	if err != nil {
		t.Fatal(err)
	}
	op := Op{Family: "gemv", Dtype: "bf16", M: 1, N: 4096, K: 4096}
	want, err := selectUncached(dev, op, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := SelectWith(dev, op, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.Variant, a.Reasons = nil, append(a.Reasons, "changed by the caller")
	b, err := SelectWith(dev, op, nil)
	if err != nil || b.Variant != want.Variant || len(b.Reasons) != len(want.Reasons) || len(b.Candidates) != len(want.Candidates) {
		t.Fatalf("memoized answer %+v (%v), want the uncached %s", b, err, want.Variant.Name)
	}
	forced, err := SelectWith(dev, op, ParseOverride("gemv:pack=4"))
	if err != nil || forced.Variant.Param("pack") != "4" || forced.Variant == b.Variant {
		t.Fatalf("override: %v, %v", forced, err)
	}
	if ch, err := SelectWith(dev, op, nil); err != nil || ch.Variant != want.Variant {
		t.Fatal("the override's answer replaced the plain one")
	}
	bad := Op{Family: "gemv", Dtype: "bf16", M: 9, N: 4096, K: 4096}
	for i := 0; i < 2; i++ {
		var ne *NotEligibleError
		if _, err := SelectWith(dev, bad, nil); !errors.As(err, &ne) {
			t.Fatalf("call %d: %v, want a NotEligibleError", i, err)
		}
	}
	// A tuned entry after the first Select.
	cache := &TuneCache{Version: tuneVersion, Entries: map[string]*TuneEntry{}}
	UseTuneCache(cache)
	defer UseTuneCache(nil)
	t.Setenv(ForceEnv, "")
	if ch, err := Select(dev, op); err != nil || ch.Tuned {
		t.Fatalf("before tuning: %v, tuned %v", err, ch != nil && ch.Tuned)
	}
	other := want.Candidates[1].Variant
	cache.mu.Lock()
	cache.Entries[tuneKey(dev, op)] = &TuneEntry{Variant: other.Name, Arch: other.Arch, SHA256: other.Artifact.SHA256}
	cache.mu.Unlock()
	if ch, err := Select(dev, op); err != nil || !ch.Tuned || ch.Variant != other {
		t.Fatalf("after tuning: %v, %+v; want the tuned %s", err, ch, other.Name)
	}
	if ch, err := SelectWith(dev, op, nil); err != nil || ch.Variant != want.Variant {
		t.Fatal("the tuned pick leaked into the memoized heuristic answer")
	}
	// Per-call cost once memoized.
	UseTuneCache(nil)
	const n = 2000
	start := time.Now()
	for i := 0; i < n; i++ {
		if _, err := Select(dev, op); err != nil {
			t.Fatal(err)
		}
	}
	per := time.Since(start) / n
	t.Logf("Select, memoized: %v per call (%d candidates)", per, len(want.Candidates))
	if per > 20*time.Microsecond {
		t.Errorf("Select takes %v per memoized call, over the 20 us target", per)
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

// TestLostByUnknownFamily: LostBy on a Choice whose family the table lacks
// says so instead of dereferencing a nil family.
func TestLostByUnknownFamily(t *testing.T) {
	ch := &Choice{Op: Op{Family: "gmv"}}
	if got := ch.LostBy(Candidate{}); got != `unknown family "gmv"` {
		t.Fatalf("LostBy: %q", got)
	}
}
