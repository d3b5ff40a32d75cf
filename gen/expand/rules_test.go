package expand

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kgen-dev/kgen/gen/spec"
	"github.com/kgen-dev/kgen/templates"
)

// TestCheckRulesModule: the module's own spec passes.
func TestCheckRulesModule(t *testing.T) {
	s, err := spec.Load(templates.FS, "templates")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckRules(s, vs); err != nil {
		t.Fatal(err)
	}
}

// TestCheckRules: a selection rule that cannot be evaluated for some
// variant, arch and op the outside rules admit is a spec error at the rule
// naming the variant and the evaluation; one that fails only where
// selection never evaluates it (outside rejected the op, an earlier
// eligible rule or eligibility excluded the variant) is not.
func TestCheckRules(t *testing.T) {
	sel := func(outside, eligible, prefer string) string {
		return kernels + "    select:\n      outside:\n" + outside + "      eligible:\n" + eligible + "      prefer:\n" + prefer
	}
	okOutside := "        - {rule: \"m >= 1 && m <= 8\", why: \"x\"}\n"
	okEligible := "        - {rule: \"m <= 4\", why: \"x\"}\n        - {rule: \"k % pack == 0\", why: \"x\"}\n"
	for _, c := range []struct {
		name, kernels, want string
	}{
		{"prefer division by zero", sel(okOutside, okEligible, "        - {rule: \"16 / (pack - 2)\", why: \"x\"}\n"),
			`templates/kernels.yaml:23:18: prefer rule "16 / (pack - 2)" cannot be evaluated for gemv_bf16_p2_sk4 on gfxa at m=1 n=1 k=4096 align=1: division by zero`},
		{"prefer string", sel(okOutside, okEligible, "        - {rule: \"layout\", why: \"x\"}\n"),
			`prefer rule "layout" cannot be evaluated for gemv_bf16_p2_sk4 on gfxa at m=1 n=1 k=4096 align=1: is the string "splitk", want an integer`},
		{"eligible remainder by zero", sel(okOutside, okEligible+"        - {rule: \"k % (m - 1) == 0\", why: \"x\"}\n", ""),
			`eligible rule "k % (m - 1) == 0" cannot be evaluated for gemv_bf16_p2_sk4 on gfxa at m=1 n=1 k=4096 align=1: division by zero`},
		{"outside names a parameter", sel("        - {rule: \"m <= pack\", why: \"x\"}\n", okEligible, ""),
			`outside rule "m <= pack" cannot be evaluated on gfxa at m=1 n=1 k=1 align=1: pack has no value here (outside rules see only the op and the arch facts)`},
		// Guarded: m == 9 is outside; m > 4 is not eligible; k % pack != 0 is
		// excluded before the third eligible rule runs.
		{"guarded by outside", sel(okOutside, okEligible, "        - {rule: \"1 / (9 - m)\", why: \"x\"}\n"), ""},
		{"guarded by eligibility", sel(okOutside, okEligible, "        - {rule: \"1 / (5 - m)\", why: \"x\"}\n"), ""},
		{"guarded by an earlier eligible rule", sel(okOutside, okEligible+"        - {rule: \"1 / (k % pack + 1) >= 0 && k / (k - k / pack * pack + pack) >= 0\", why: \"x\"}\n", ""), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := small(t, c.kernels)
			vs, err := Expand(s)
			if err != nil {
				t.Fatal(err)
			}
			err = CheckRules(s, vs)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("CheckRules: %v, want nil", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("CheckRules: %v\nwant an error containing %s", err, c.want)
			}
			if _, ok := err.(*Error); err != nil && !ok {
				t.Fatalf("CheckRules: %T, want *Error (exit 2)", err)
			}
		})
	}
}

// TestCheckRulesArchPrefer: an arch's prefer key is checked too, at its
// line in the arch file.
func TestCheckRulesArchPrefer(t *testing.T) {
	tmpl, _ := templates.FS.ReadFile("gemv/gemv.hip.tmpl")
	comp, _ := templates.FS.ReadFile("gemv/gemv.comp.tmpl")
	fsys := fstest.MapFS{
		"kernels.yaml":        {Data: []byte(kernels)},
		"gemv/gemv.hip.tmpl":  {Data: tmpl},
		"gemv/gemv.comp.tmpl": {Data: comp},
		"archs/gfxa.yaml":     {Data: []byte("arch: gfxa\nbackend: hip\nwave: 32\ncompute_units: 8\nshared_memory: 65536\ndtypes: [f32]\nprefer:\n  gemv:\n    - {rule: \"n / (splits - 1)\", why: \"x\"}\n")},
	}
	s, err := spec.Load(fsys, "templates")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	err = CheckRules(s, vs)
	if want := `templates/archs/gfxa.yaml:9:14: prefer rule "n / (splits - 1)" cannot be evaluated for gemv_f32_p2_wg64 on gfxa at m=1 n=1 k=1 align=1: division by zero`; err == nil || err.Error() != want {
		t.Fatalf("CheckRules: %v\nwant %s", err, want)
	}
}
