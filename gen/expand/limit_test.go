package expand

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kgen-dev/kgen/gen/spec"
	"github.com/kgen-dev/kgen/templates"
)

// TestMaxVariants: a family over its max_variants on an arch is an error
// naming the axes; raising max_variants allows it; 0 is a spec error.
func TestMaxVariants(t *testing.T) {
	with := func(n string) string {
		return strings.Replace(kernels, "  gemv:\n", "  gemv:\n    max_variants: "+n+"\n", 1)
	}
	// gfxa emits f32 p2 and bf16 p2/p8, each with two tiles: 6 variants.
	_, err := Expand(small(t, with("5")))
	if want := "family gemv expands to 6 variants on gfxa, more than its limit of 5: its axes multiply dtype 2 x pack 2 x tile 2 = 8 combinations"; err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "templates/kernels.yaml:6:19: ") {
		t.Errorf("max_variants 5: %v\nwant an error at templates/kernels.yaml:6:19 containing %s", err, want)
	}
	if _, err := Expand(small(t, with("6"))); err != nil {
		t.Errorf("max_variants 6: %v", err)
	}
	tmpl, _ := templates.FS.ReadFile("gemv/gemv.hip.tmpl")
	comp, _ := templates.FS.ReadFile("gemv/gemv.comp.tmpl")
	_, err = spec.Load(fstest.MapFS{
		"kernels.yaml":        {Data: []byte(with("0"))},
		"gemv/gemv.hip.tmpl":  {Data: tmpl},
		"gemv/gemv.comp.tmpl": {Data: comp},
		"archs/gfxa.yaml":     {Data: []byte("arch: gfxa\nbackend: hip\nwave: 32\ncompute_units: 8\nshared_memory: 65536\ndtypes: [f32]\n")},
	}, "templates")
	if err == nil || !strings.Contains(err.Error(), "max_variants 0; allowed: 1..") {
		t.Errorf("max_variants 0: %v", err)
	}
}
