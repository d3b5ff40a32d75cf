package runtime

import (
	"errors"
	"strings"
	"testing"
)

// TestForceVariantName: KGEN_FORCE set to a variant's full name selects
// exactly that variant; an unknown family or name is an ErrForce from
// ForceError whatever the op's family.
func TestForceVariantName(t *testing.T) {
	dev, err := ArchDevice("gfx1200")
	if err != nil {
		t.Fatal(err)
	}
	op := Op{Family: "gemv", Dtype: "bf16", M: 1, N: 4096, K: 4096}
	const name = "gemv_bf16_p4_r2_t1_wg128"
	ch, err := SelectWith(dev, op, ParseOverride(name))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Variant.Name != name || ch.Forced != name {
		t.Fatalf("KGEN_FORCE=%s chose %s (forced %q)", name, ch.Variant.Name, ch.Forced)
	}
	for _, c := range ch.Candidates {
		if c.Variant != ch.Variant && c.Excluded == "" {
			t.Errorf("%s still eligible under KGEN_FORCE=%s", c.Variant.Name, name)
		}
	}
	for raw, want := range map[string]string{
		"gmv:pack=4":               `unknown family "gmv"`,
		"gemv_bf16_p4_r2_t1_wg999": "no variant has this name",
		"gemv:pack=3":              "no gemv variant has pack=3",
	} {
		t.Setenv(ForceEnv, raw)
		err := ForceError()
		if !errors.Is(err, ErrForce) || !strings.Contains(err.Error(), want) {
			t.Errorf("KGEN_FORCE=%s: ForceError() = %v, want ErrForce saying %q", raw, err, want)
		}
	}
	t.Setenv(ForceEnv, name)
	if err := ForceError(); err != nil {
		t.Errorf("KGEN_FORCE=%s: %v", name, err)
	}
}
