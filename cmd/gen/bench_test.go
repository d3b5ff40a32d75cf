package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/bench"
	"github.com/kgen-dev/kgen/runtime/table"
)

// tileTimer times a variant by its tile, the thread tile 30x the others.
type tileTimer struct{ timed int }

func (t *tileTimer) Time(v *table.Variant, op kruntime.Op) (float64, error) {
	t.timed++
	if us, ok := map[string]float64{"thread": 300, "sg": 10, "multi": 12, "wg": 20}[v.Param("tile")]; ok {
		return us, nil
	}
	return float64(len(v.Name)), nil
}

// TestRunBench: a case the family does not serve (Q8_K at k = 1000) is a
// "not eligible" line and an entry of the JSON's not_eligible list, and
// the run goes on; the records of both kinds are written after each case.
func TestRunBench(t *testing.T) {
	dir := t.TempDir()
	rows := filepath.Join(dir, "rows.yaml")
	models := filepath.Join(dir, "models.yaml")
	os.WriteFile(rows, []byte("rows: [1]\nk: [1000, 4096]\n"), 0o644)
	os.WriteFile(models, []byte("tokens: [1, 2]\nmodels:\n  m: {l: {n: 4096, k: 4096}}\n"), 0o644)
	dev, err := kruntime.ArchDevice("sm90")
	if err != nil {
		t.Fatal(err)
	}
	dev.Name, dev.Driver = "Fake GPU", "fake 1"

	cases, err := loadCases([]string{"quant_q8k", "quant_q8_1"}, models, rows, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2*2*2 { // families x f32,bf16 (the rows default) x k
		t.Fatalf("%d cases", len(cases))
	}
	out := filepath.Join(dir, "quant.json")
	var lines strings.Builder
	writes := 0
	write := func(rs []bench.Record, sk []bench.Skipped) error {
		writes++
		return writeBench(out, dev, "cuda", "graph", "rotate", 20, 2, rs, sk, nil)
	}
	tm := &tileTimer{}
	if err := runBench(&lines, tm, dev, cases, nil, write, "", 2); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(lines.String(), "\n"), "\n")
	if len(got) != 8 || writes != 8 {
		t.Fatalf("%d lines, %d writes:\n%s", len(got), writes, lines.String())
	}
	for i, want := range []string{
		"not eligible: Q8_K quantizes whole 256-element superblocks, so K must be a multiple of 256 (pad the row or use Q8_1) (quant_q8k f32 m=1 n=1 k=1000 fails k % 256 == 0)",
		"quant_q8k  f32  rows=1     k=4096   thread     300.0 us  best sg         10.0 us   30.0x",
	} {
		if !strings.HasPrefix(got[i], want) {
			t.Errorf("line %d: %q, want %q...", i, got[i], want)
		}
	}
	var doc struct {
		Device      string
		Results     []map[string]any
		NotEligible []struct {
			Op     string
			Case   bench.QuantCase
			Reason string
		} `json:"not_eligible"`
	}
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Device != "Fake GPU" || len(doc.Results) != 6 || len(doc.NotEligible) != 2 {
		t.Fatalf("%s: %d results, %d not eligible", doc.Device, len(doc.Results), len(doc.NotEligible))
	}
	ne := doc.NotEligible[1]
	if ne.Op != "quant_q8k bf16 m=1 n=1 k=1000" || ne.Case != (bench.QuantCase{Family: "quant_q8k", Rows: 1, K: 1000, Dtype: "bf16"}) || !strings.HasPrefix(ne.Reason, "not eligible: Q8_K quantizes whole") {
		t.Errorf("not eligible: %+v", ne)
	}
	// The quantizer record keeps its fields.
	r := doc.Results[0]
	for _, k := range []string{"family", "rows", "k", "dtype", "input_bytes", "output_bytes", "bytes", "rotated_bytes", "heuristic", "heuristic_us", "tuned", "tuned_us",
		"candidates", "times", "tile_us", "thread_us", "best_tile", "best_us", "speedup", "best_gbps", "tuned_gbps", "heuristic_gbps", "tune_seconds"} {
		if _, ok := r[k]; !ok {
			t.Errorf("quantizer result lacks %q: %v", k, r)
		}
	}
	if r["family"] != "quant_q8k" || r["k"] != 4096.0 || r["thread_us"] != 300.0 || r["speedup"] != 30.0 {
		t.Errorf("%v", r)
	}

	// The model suite: GEMV records, no not_eligible list.
	cases, err = loadCases([]string{"gemv"}, models, rows, "bf16", true)
	if err != nil || len(cases) != 2 {
		t.Fatalf("%d cases: %v", len(cases), err)
	}
	out = filepath.Join(dir, "gemv.json")
	lines.Reset()
	if err := runBench(&lines, tm, dev, cases, nil, write, "", 2); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(out)
	var gdoc map[string]any
	if err := json.Unmarshal(b, &gdoc); err != nil {
		t.Fatal(err)
	}
	if _, ok := gdoc["not_eligible"]; ok || len(gdoc["results"].([]any)) != 2 {
		t.Fatalf("%s", b)
	}
	g := gdoc["results"].([]any)[1].(map[string]any)
	for _, k := range []string{"Family", "Model", "Layer", "N", "K", "M", "Dtype", "weight_bytes", "bytes", "heuristic", "heuristic_us", "tuned", "tuned_us",
		"candidates", "tuned_gbps", "heuristic_gbps", "tune_seconds", "times"} {
		if _, ok := g[k]; !ok {
			t.Errorf("GEMV result lacks %q: %v", k, g)
		}
	}
	if g["M"] != 2.0 || g["weight_bytes"] != float64(4096*4096*2) || !strings.Contains(lines.String(), "m=2 bf16") {
		t.Errorf("%v\n%s", g, lines.String())
	}
}

// chainTimer is a tileTimer that also times chains: 7 us a producer, 5 us
// the consumer.
type chainTimer struct {
	tileTimer
	chains [][]int
}

func (t *chainTimer) TimeChain(c *kruntime.Chain, steps ...int) (float64, error) {
	t.chains = append(t.chains, steps)
	if len(steps) == 0 {
		return 12, nil
	}
	return 7 * float64(len(steps)), nil
}

// TestRunBenchPair: with --pair each case's record carries the pair's
// fields next to its own, and its line the pair's time; a timer that
// cannot time chains is an error.
func TestRunBenchPair(t *testing.T) {
	t.Setenv(kruntime.TuneCacheEnv, "off")
	dir := t.TempDir()
	models := filepath.Join(dir, "models.yaml")
	os.WriteFile(models, []byte("tokens: [1, 3]\nmodels:\n  m: {l: {n: 4096, k: 14336}}\n"), 0o644)
	dev, _ := kruntime.ArchDevice("sm90")
	cases, err := loadCases([]string{"mmvq"}, models, "", "q4_k,q8_0", true)
	if err != nil || len(cases) != 4 {
		t.Fatalf("%d cases: %v", len(cases), err)
	}
	out := filepath.Join(dir, "pair.json")
	write := func(rs []bench.Record, sk []bench.Skipped) error {
		return writeBench(out, dev, "cuda", "graph", "rotate", 20, 2, rs, sk, nil)
	}
	var lines strings.Builder
	if err := runBench(&lines, &tileTimer{}, dev, cases, nil, write, "f32", 2); err == nil || !strings.Contains(err.Error(), "cannot time chains") {
		t.Errorf("a plain timer: %v", err)
	}
	tm := &chainTimer{}
	if err := runBench(&lines, tm, dev, cases, nil, write, "bf16", 2); err != nil {
		t.Fatal(err)
	}
	if len(tm.chains) != 8 || tm.chains[0] != nil || len(tm.chains[1]) != 1 || tm.chains[1][0] != 0 {
		t.Errorf("chains timed: %v", tm.chains)
	}
	var doc struct{ Results []map[string]any }
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Results) != 4 {
		t.Fatalf("%v: %s", err, b)
	}
	for _, r := range doc.Results {
		if r["pair_us"] != 12.0 || r["producer_us"] != 7.0 || r["pair_act"] != "bf16" || r["pair_consumer"] != r["tuned"] ||
			!strings.HasPrefix(r["pair_producer"].(string), "quant_q8_1_bf16_") || r["tuned_us"] == nil || r["Model"] != "m" {
			t.Errorf("%v", r)
		}
	}
	if !strings.Contains(lines.String(), " pair bf16 quant_q8_1_bf16_") {
		t.Errorf("%s", lines.String())
	}
}

// TestBenchPipelineStats: the driver's statistics by variant land in the
// JSON as pipeline_stats, and the key is absent without them (CUDA, or a
// driver that reports none, as lavapipe 22.3).
func TestBenchPipelineStats(t *testing.T) {
	dev, err := kruntime.ArchDevice("sm90")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "b.json")
	stats := map[string]map[string]float64{"quant_q8_1_f16_lane": {"Register Count": 40, "Binary Size": 9000}}
	for _, st := range []map[string]map[string]float64{stats, nil} {
		if err := writeBench(out, dev, "vulkan", "command-buffer", "rotate", 20, 2, nil, nil, st); err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		b, _ := os.ReadFile(out)
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		raw, ok := doc["pipeline_stats"]
		if st == nil {
			if ok {
				t.Fatalf("pipeline_stats without statistics: %s", raw)
			}
			continue
		}
		var got map[string]map[string]float64
		if err := json.Unmarshal(raw, &got); err != nil || got["quant_q8_1_f16_lane"]["Register Count"] != 40 {
			t.Fatalf("pipeline_stats %s: %v", raw, err)
		}
	}
}
