package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestABReport compares two builds' passes: per case the fastest variant of
// each side over its passes, the ratio A/B, per-tile ratios over the cases
// both sides timed, and the spread between a side's passes.
func TestABReport(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, times map[string]float64) string {
		type res struct {
			Model, Layer, Dtype string
			M                   int
			Times               map[string]float64 `json:"times"`
		}
		b, _ := json.Marshal(map[string]any{"device": "GPU", "results": []res{{"m", "down", "q4_k", 8, times}}})
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a1 := write("a1.json", map[string]float64{"mmvq_q4_k_r16_t8_mms128": 24, "mmvq_q4_k_r16_t8_mma128": 30})
	a2 := write("a2.json", map[string]float64{"mmvq_q4_k_r16_t8_mms128": 22, "mmvq_q4_k_r16_t8_mma128": 31})
	b1 := write("b1.json", map[string]float64{"mmvq_q4_k_r16_t8_mms128": 20, "mmvq_q4_k_r16_t8_mma128": 30})
	var out strings.Builder
	if err := abReport(&out, []string{a1, a2}, []string{b1}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"| q4_k m down m=8 | 22.0 (r16_t8_mms128) | 20.0 (r16_t8_mms128) | 1.100 |", // A: the faster of its two passes
		"tuned A/B over 1 cases: median 1.100 (1.100-1.100); B faster by more than 2% in 1, slower by more than 2% in 0",
		"A's passes, slowest / fastest tuned time per case: median 1.091 (1.091-1.091)",
		"| r16_t8_mma128 | 1 | 1.000 |",
		"| r16_t8_mms128 | 1 | 1.100 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "B's passes") {
		t.Errorf("a pass spread for a side with one pass:\n%s", got)
	}
	if err := abReport(&out, []string{a1}, []string{filepath.Join(dir, "none.json")}); err == nil {
		t.Errorf("no error for a missing file")
	}
}
