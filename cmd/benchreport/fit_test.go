package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// smallRun writes the cases of a few models of the committed Vulkan select
// run to a temporary file.
func smallRun(t *testing.T, models ...string) string {
	t.Helper()
	b, err := readResult(filepath.Join("..", "..", "bench", "results", "h200-2026-12-02a-select-vulkan.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	keep := map[string]bool{}
	for _, m := range models {
		keep[m] = true
	}
	var rs []any
	for _, r := range f["results"].([]any) {
		if keep[r.(map[string]any)["Model"].(string)] {
			rs = append(rs, r)
		}
	}
	f["results"] = rs
	out, _ := json.Marshal(f)
	path := filepath.Join(t.TempDir(), "run-vulkan.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFitAndLOO: the fitter varies the arch's model constants through the
// prefer keys (no formula in Go), never scores worse than its start on the
// cases it fits, and -eval's leave-one-model-out prints one line per model
// with the totals; every pick stays among the measured candidates because
// the keys before the model fix pack and tokens.
func TestFitAndLOO(t *testing.T) {
	path := smallRun(t, "mixtral-8x7b", "granite-3-8b")
	sets, err := loadFitSets([]string{path}, "gemv")
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) != 1 || len(sets[0].modelKeys) != 1 || len(sets[0].consts) == 0 {
		t.Fatalf("want one set with a model key and constants, got %+v", sets)
	}
	s := sets[0]
	for _, c := range s.cases {
		for _, x := range c.cands {
			if x.us == 0 {
				t.Errorf("%s: front candidate %s was not measured", c.label, x.name)
			}
		}
	}
	start, err := s.initVals("")
	if err != nil {
		t.Fatal(err)
	}
	all := s.all(nil)
	fitted := s.fit(all, start)
	if a, b := s.objective(all, fitted), s.objective(all, start); a > b {
		t.Errorf("fit made the objective worse: %v > %v", a, b)
	}
	if _, err := s.initVals("nope=1"); err == nil {
		t.Error("-init with an unknown constant: no error")
	}
	var out strings.Builder
	if err := looReport(&out, sets, "", false); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, re := range []string{
		`(?m)^vulkan \(nvidia\): committed model constants, in-sample: within 10% in \d+ of 40 `,
		`(?m)^vulkan \(nvidia\): leave-one-model-out \(2 models\): within 10% in \d+ of 40 \(\d+\.\d%\), worst x\d\.\d{3}, 0 picks not timed$`,
		`(?m)^  granite-3-8b +within 10% in +\d+ of  24, worst x`,
		`(?m)^  mixtral-8x7b +within 10% in +\d+ of  16, worst x`,
	} {
		if !regexp.MustCompile(re).MatchString(got) {
			t.Errorf("no match for %s in\n%s", re, got)
		}
	}
	out.Reset()
	if err := fitReport(&out, sets, ""); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^vulkan \(nvidia\): fitted on all 40 cases of 2 models; in-sample within 10% in \d+ of 40 .*\nmodel:\n  acc_ns: \d+\n`).MatchString(out.String()) {
		t.Errorf("fit report:\n%s", out.String())
	}
}
