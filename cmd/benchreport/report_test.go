package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kruntime "github.com/kgen-dev/kgen/runtime"
)

// TestEvaluate: a case whose current pick was timed counts as within or
// slower, one whose pick was not timed is unknown and listed, one without
// times is skipped.
func TestEvaluate(t *testing.T) {
	dev, err := kruntime.ArchDevice("sm90")
	if err != nil {
		t.Fatal(err)
	}
	op := kruntime.Op{Family: "gemv", Dtype: "bf16", M: 1, N: 4096, K: 4096}
	ch, err := kruntime.SelectWith(dev, op, nil)
	if err != nil {
		t.Fatal(err)
	}
	pick := ch.Heuristic.Name
	type res struct {
		Family              string `json:",omitempty"`
		Model, Layer, Dtype string
		N, K, M             int
		TunedUS             float64            `json:"tuned_us"`
		Times               map[string]float64 `json:"times,omitempty"`
	}
	file := map[string]any{"backend": "cuda", "arch": "sm90", "results": []res{
		{"gemv", "m", "within", "bf16", 4096, 4096, 1, 10, map[string]float64{pick: 10.5, "other": 10}},
		{"", "m", "slower", "bf16", 4096, 4096, 1, 10, map[string]float64{pick: 12, "other": 10}},
		{"", "m", "unknown", "bf16", 4096, 4096, 1, 10, map[string]float64{"other": 10}},
		{"", "m", "old", "bf16", 4096, 4096, 1, 10, nil},
	}}
	b, _ := json.Marshal(file)
	path := filepath.Join(t.TempDir(), "run-cuda.json")
	os.WriteFile(path, b, 0o644)
	var out strings.Builder
	if err := evaluate(&out, []string{path}, "gemv"); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	wantIn(t, got,
		"cuda (sm90): current heuristic within 10% of tuned in 1 of 2 cases (50%); worst x1.200; 1 unknown, 1 without times\n",
		"  slower  m/slower gemv bf16 m=1 n=4096 k=4096: picks "+pick+" 12.0 us, fastest 10.0 us (+20%)\n",
		"  unknown m/unknown gemv bf16 m=1 n=4096 k=4096: picks "+pick+", not timed\n",
	)
	// The family a result names is used; the default only for the others.
	out.Reset()
	if err := evaluate(&out, []string{path}, "nope"); err != nil {
		t.Fatal(err)
	}
	got = out.String()
	wantIn(t, got,
		"cuda (sm90): current heuristic within 10% of tuned in 1 of 1 cases (100%); worst x1.050; 2 unknown, 1 without times\n",
		"  unknown m/slower nope bf16 m=1 n=4096 k=4096: unknown family \"nope\"\n",
	)
	// A later file's timing of a case supersedes the earlier one: the
	// re-timed "slower" case is within now, the others stay as they were.
	later := map[string]any{"backend": "cuda", "arch": "sm90", "results": []res{
		{"", "m", "slower", "bf16", 4096, 4096, 1, 10, map[string]float64{pick: 10, "other": 10.2}},
	}}
	b, _ = json.Marshal(later)
	path2 := filepath.Join(t.TempDir(), "rerun-cuda.json")
	os.WriteFile(path2, b, 0o644)
	out.Reset()
	if err := evaluate(&out, []string{path, path2}, "gemv"); err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.String(), "cuda (sm90): current heuristic within 10% of tuned in 2 of 2 cases (100%); worst x1.050; 1 unknown, 1 without times\n")
	out.Reset()
	if err := evaluate(&out, []string{path2, path}, "gemv"); err != nil { // the other order: the first file's is superseded
		t.Fatal(err)
	}
	wantIn(t, out.String(), "cuda (sm90): current heuristic within 10% of tuned in 1 of 2 cases (50%); worst x1.200;")
}

// TestQuantSection checks the quantizer tables, targets and charts.
func TestQuantSection(t *testing.T) {
	q := quantFile{Device: "GPU", Driver: "d", Backend: "cuda", Arch: "sm90", Results: []quantResult{
		{Family: "quant_q8k", Rows: 1, K: 4096, Dtype: "bf16", Bytes: 8192 + 4672, Heuristic: "quant_q8k_bf16_wg", Tuned: "quant_q8k_bf16_sg", TunedUS: 2,
			ThreadUS: 50, BestTile: "sg", BestUS: 2, Speedup: 25, BestGBps: 6.4, Times: map[string]float64{"quant_q8k_bf16_wg": 2.1, "quant_q8k_bf16_sg": 2}},
		{Family: "quant_q8k", Rows: 4096, K: 4096, Dtype: "bf16", Bytes: 1 << 30, Heuristic: "quant_q8k_bf16_multi", HeuristicUS: 400, Tuned: "quant_q8k_bf16_multi", TunedUS: 300,
			ThreadUS: 900, BestTile: "multi", BestUS: 300, Speedup: 3, BestGBps: 3600},
		{Family: "quant_q8_1", Rows: 1, K: 4096, Dtype: "f32", Bytes: 16384 + 4608, Heuristic: "quant_q8_1_f32_sg", Tuned: "quant_q8_1_f32_sg", TunedUS: 2,
			ThreadUS: 4, BestTile: "sg", BestUS: 2, Speedup: 2, BestGBps: 10},
	}, NotEligible: []skipped{{Op: "quant_q8k f32 m=1 n=1 k=1000", Reason: "not eligible: Q8_K quantizes whole 256-element superblocks"}}}
	dir := t.TempDir()
	var out strings.Builder
	if err := quantSection(&out, dir, "run", "Quantizers", q, 4000, pathFloors{}, false); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	wantIn(t, got,
		"- quant_q8k at one row, K = 4096, at least 20x faster than the thread-per-block baseline: bf16 25.0x (sg 2.00 us, thread 50.00 us).\n",
		"- quant_q8k at 4096 rows, at least 80% of copy bandwidth (best tile): bf16 K=4096 90%.\n",
		"- quant_q8_1 at one row, K = 4096, at least 20x faster than the thread-per-block baseline: f32 2.0x (sg 2.00 us, thread 4.00 us).\n",
		"- quant_q8_1 at 4096 rows, at least 80% of copy bandwidth (best tile): not measured.\n",
		"- Not eligible, reported by gen bench and not timed: 1 cases.\n  - quant_q8k f32 m=1 n=1 k=1000: not eligible: Q8_K quantizes whole 256-element superblocks\n",
		"- Heuristic within 10% of tuned: 1 of 2 cases.\n", // from times, else heuristic_us (400 > 1.1 x 300); the third has neither
		"### quant_q8k\n", "### quant_q8_1\n",
		"| 1 | 4096 | bf16 | 50.00 | sg | 2.00 | 25.0x | 6 | 0% | quant_q8k_bf16_wg | quant_q8k_bf16_sg |\n",
		"![Quantizers quant_q8_1](bench/results/run-quant-cuda-quant_q8_1.png)",
	)
	for _, f := range []string{"run-quant-cuda-quant_q8k.png", "run-quant-cuda-quant_q8_1.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("chart %s: %v", f, err)
		}
	}
}

// TestMMVQSection checks the suite's targets line, the ggml ratios and that
// both charts are drawn from the run's files.
func TestMMVQSection(t *testing.T) {
	dir := t.TempDir()
	type res struct {
		Model, Layer, Dtype string
		N, K, M             int
		WeightBytes         int64   `json:"weight_bytes"`
		Tuned               string  `json:"tuned"`
		TunedUS             float64 `json:"tuned_us"`
		PairUS              float64 `json:"pair_us"`
	}
	write := func(name string, rs []res) {
		b, _ := json.Marshal(map[string]any{"device": "GPU", "backend": "cuda", "launch": "graph", "results": rs})
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	big := int64(8192) * 8192 * 9 / 16 // Q4_K bytes of 128 MiB of bf16
	write("run-mmvq-cuda.json", []res{
		{"m", "ffn", "q4_k", 8192, 8192, 1, big, "a", 20, 22},
		{"m", "ffn", "q4_k", 8192, 8192, 8, big, "b", 40, 44},
		{"m", "ffn", "q6_k", 8192, 8192, 1, big, "c", 30, 32},
	})
	write("run-mmvq-ggml-vulkan.json", []res{{"ggml", "mul_mat_vec", "q4_k", 4096, 14336, 1, 0, "c", 10, 12}})
	os.WriteFile(filepath.Join(dir, "run-ggml-quant.txt"), []byte("  MUL_MAT(type_a=q4_K,type_b=f32,m=4096,n=1,k=14336,bs=[1,1],nr=[1,1],per=[0,1,2,3],v=0,o=1): 100 runs - 15.00 us/run - ...\n"), 0o644)
	cub := map[cubKey]float64{{"m", "ffn", 1, "bf16"}: 60, {"m", "ffn", 8, "bf16"}: 80}
	var md strings.Builder
	reads := map[cubKey]float64{{"m", "ffn", 0, "q4_k"}: 16} // a same-size read of the Q4_K bytes
	if err := mmvqSection(&md, dir, []suiteRun{{"run", cub, 4000, reads}}, "run", mmvqSel{}); err != nil {
		t.Fatal(err)
	}
	got := md.String()
	wantIn(t, got,
		"Q4_K at M = 1 3.00-3.00x over 1 shapes faster than bf16 cuBLAS (target >= 3x); at M = 8 2.00-2.00x over 1 shapes",
		"| q4_k | 1 | 10.0 | 12.0 | 15.0 | 1.50 | 1.25 |\n",
		"![mmvq cuda](bench/results/run-mmvq-cuda.png)",
		"![mmvq against ggml, vulkan](bench/results/run-mmvq-ggml-vulkan.png)",
		"NOT timed the same way", // this file records no --timing ggml
		"(mmvq: Q4_K, Q6_K x Q8_1), cuda path",
		// the targets are Q4_K's, on the H200; other formats are reported without one
		"bf16 weights, measured on the GPU, not the NVIDIA H200 the targets name): Q4_K at M = 1 3.00-3.00x over 1 shapes",
		"Q6_K (no target), the same shapes: M = 1 2.00-2.00x over 1 shapes faster than bf16 cuBLAS; M = 8 (no such cases).",
		// the same-size read: a column where the run has one, "-" where not, and a line beside the target
		"| m ffn | 8192x8192 | 1 | a | 20.0 | 22.0 | 60.0 | 3.00 | 47% | 80% |\n",
		"| m ffn | 8192x8192 | 8 | b | 40.0 | 44.0 | 80.0 | 2.00 | 24% | 40% |\n",
		"| 30.0 | 32.0 | 60.0 | 2.00 | 31% | - |\n",
		"at M = 1 the same shapes take 80",
	)
	if strings.Contains(got, "Against it") {
		t.Errorf("target verdicts for a peer timed another way:\n%s", got)
	}
	for _, f := range []string{"run-mmvq-cuda.png", "run-mmvq-ggml-vulkan.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("chart %s: %v", f, err)
		}
	}
}

// TestMMVQPeerRun takes the ggml comparison from another run's files
// (-mmvq-peer-run), says both sides were timed as test-backend-ops times
// and by which KGEN_FORCE kgen's candidates were narrowed, and states the
// issue-11 targets met or missed from the pair's ratio.
func TestMMVQPeerRun(t *testing.T) {
	dir := t.TempDir()
	type res struct {
		Model, Layer, Dtype string
		N, K, M             int
		TunedUS             float64 `json:"tuned_us"`
		PairUS              float64 `json:"pair_us"`
		Forced              string  `json:"forced"`
	}
	rs := []res{
		{"ggml-peer", "down", "q4_k", 4096, 14336, 1, 10, 10.5, "mmvq:rows=2"},
		{"ggml-peer", "down", "q4_k", 4096, 14336, 4, 25, 26, "mmvq:rows=2"},
		{"ggml-peer", "down", "q4_k", 4096, 14336, 8, 40, 41, "mmvq:rows=2"},
	}
	// the peer run's section with its JSON recording this device
	section := func(device string) string {
		b, _ := json.Marshal(map[string]any{"device": device, "backend": "vulkan", "timing": "ggml", "results": rs})
		os.WriteFile(filepath.Join(dir, "peer-mmvq-ggml-vulkan.json"), b, 0o644)
		var md strings.Builder
		if err := mmvqSection(&md, dir, []suiteRun{{"run", nil, 4000, nil}}, "peer", mmvqSel{}); err != nil {
			t.Fatal(err)
		}
		return md.String()
	}
	var log strings.Builder
	for _, n := range []string{"1", "4", "8"} {
		us := map[string]string{"1": "18.90", "4": "48.00", "8": "110.00"}[n]
		log.WriteString("  MUL_MAT(type_a=q4_K,type_b=f32,m=4096,n=" + n + ",k=14336,bs=[1,1],nr=[1,1],per=[0,1,2,3],v=0,o=1): 100 runs - " + us + " us/run - ...\n")
	}
	os.WriteFile(filepath.Join(dir, "peer-ggml-quant.txt"), []byte(log.String()), 0o644)
	wantIn(t, section("NVIDIA H200"),
		"The comparison with ggml below is run peer's",
		"Both sides timed as test-backend-ops times an op",
		"KGEN_FORCE=mmvq:rows=2",
		"n = 1 1.80x (target 1.2x): met; n = 4 1.85x (target 2.0x): MISSED; n = 8 2.68x (target 2.0x): met",
		"![mmvq against ggml, vulkan](bench/results/peer-mmvq-ggml-vulkan.png)",
		"Against it (ggml / kgen pair, q4_k): n = 1",
	)

	// Another card: the same verdicts, marked as not the acceptance run.
	wantIn(t, section("NVIDIA H100 80GB HBM3"), "Against it (ggml / kgen pair, q4_k on the NVIDIA H100 80GB HBM3, not the NVIDIA H200 the target names): n = 1 1.80x")
}

// TestQuantRunFloors reads a quantizer run's copy bandwidth and its least
// empty-kernel launch, and names the file when the copy figure is missing.
func TestQuantRunFloors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := quantRunFloors(dir, "r"); err == nil || !strings.Contains(err.Error(), "r-copy.txt") {
		t.Fatalf("no copy file: err = %v, want one naming r-copy.txt", err)
	}
	write("r-copy.txt", "copy 4261 GB/s (4 GiB f32, read + write, median of 10)\n")
	write("r-empty.txt", "empty kernel grid 1 x 64 lanes, graph of 64: 0.546 us per launch (median of 20)\nempty kernel grid 1 x 256 lanes, graph of 64: 0.529 us per launch (median of 20)\n")
	f, err := quantRunFloors(dir, "r")
	if err != nil || f != (runFloors{CopyGBps: 4261, CUDA: pathFloors{EmptyUS: 0.529}}) {
		t.Fatalf("quantRunFloors = %+v, %v; want copy 4261, CUDA floor 0.529, no Vulkan figures", f, err)
	}
	// bench/empty-launch.cu's one-row move line.
	write("r-empty.txt", "empty kernel grid 1 x 64 lanes, graph of 64: 0.546 us per launch (median of 20)\n"+
		"one-row move (K 4096 f32 in, 128 Q8_1 blocks out) grid 2 x 64 lanes, graph of 64: 1.204 us a launch (median of 20)\n")
	// cmd/vktime's lines: the least empty dispatch, the best copy.
	write("r-vkempty.txt", "bench/vk/empty.spv groups [1 1 1]: 2.913 us a dispatch (median of 10 passes of 512 dispatches over 1 buffer copies; NVIDIA H200)\n"+
		"bench/vk/empty.spv groups [8192 1 1]: 3.500 us a dispatch (median of 10 passes of 64 dispatches over 1 buffer copies; NVIDIA H200)\n")
	write("r-vkcopy.txt", "## vktime -spv bench/vk/copy.spv\nbench/vk/copy.spv groups [4096 1 1]: 9.1 us a dispatch (...), 3687 GB/s\nbench/vk/copy.spv groups [65536 1 1]: 131.0 us a dispatch (...), 4098 GB/s\n")
	f, err = quantRunFloors(dir, "r")
	if err != nil || f != (runFloors{CopyGBps: 4261, CUDA: pathFloors{EmptyUS: 0.546, RowUS: 1.204}, Vulkan: pathFloors{EmptyUS: 2.913, CopyGBps: 4098}}) {
		t.Fatalf("quantRunFloors = %+v, %v", f, err)
	}
	// vktime's one-row move (the copy shader on one row's bytes).
	write("r-vkrow.txt", "bench/vk/copy.spv groups [4 1 1]: 3.702 us a dispatch (median of 10 passes of 512 dispatches over 512 buffer copies; NVIDIA H200)\n")
	f, err = quantRunFloors(dir, "r")
	if err != nil || f.Vulkan.RowUS != 3.702 {
		t.Fatalf("quantRunFloors = %+v, %v", f, err)
	}
}

// TestStatsReport: each case's variants fastest first, each with its
// statistics; a file without pipeline_stats is an error that says why.
func TestStatsReport(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "b.json")
	os.WriteFile(p, []byte(`{"device": "NVIDIA H200", "pipeline_stats": {"a": {"Register Count": 40}, "b": {"Register Count": 96, "Binary Size": 9000}},
 "results": [{"Model": "m", "Layer": "l", "N": 8, "K": 256, "M": 5, "times": {"a": 20.5, "b": 10.25}},
             {"family": "quant_q8_1", "rows": 4096, "k": 4096, "dtype": "f16", "times": {"a": 1, "c": 2}}]}`), 0o644)
	var out strings.Builder
	if err := statsReport(&out, []string{p}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	wantIn(t, got,
		"  m/l m=5 n=8 k=256\n    b                                      10.25 us  Binary_Size=9000 Register_Count=96\n    a                                      20.50 us  Register_Count=40\n",
		"  rows=4096 k=4096 f16\n",
		"    c                                       2.00 us  (no statistics)\n",
	)
	os.WriteFile(p, []byte(`{"device": "x", "results": []}`), 0o644)
	if err := statsReport(&out, []string{p}); err == nil || !strings.Contains(err.Error(), "no pipeline_stats") {
		t.Errorf("no stats: %v", err)
	}
}

// wantIn reports each of wants that got does not contain.
func wantIn(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

// TestMMVQSelection: with -mmvq-oos-run the mmvq section scores the
// committed keys in-sample on the suite's file and out of sample on the
// run's loo files without the fitted models, per weight format, each pick
// against its case's fastest timed candidate.
func TestMMVQSelection(t *testing.T) {
	dir := t.TempDir()
	dev, err := kruntime.ArchDevice("sm90")
	if err != nil {
		t.Fatal(err)
	}
	// one case whose pick is the fastest, one whose pick is 1.5x the fastest
	pickOf := func(n, k, m int) string {
		ch, err := kruntime.SelectWith(dev, kruntime.Op{Family: "mmvq", Dtype: "q4_k", M: m, N: n, K: k}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ch.Heuristic.Name
	}
	type res struct {
		Family, Model, Layer, Dtype string
		N, K, M                     int
		TunedUS                     float64            `json:"tuned_us"`
		Times                       map[string]float64 `json:"times"`
	}
	write := func(name string, rs []res) {
		b, _ := json.Marshal(map[string]any{"arch": "sm90", "backend": "cuda", "launch": "graph", "results": rs})
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hit := res{"mmvq", "fitted", "ffn", "q4_k", 4096, 4096, 1, 10, map[string]float64{pickOf(4096, 4096, 1): 10, "other": 11}}
	miss := func(layer string) res {
		return res{"mmvq", "new", layer, "q4_k", 4096, 4096, 1, 10, map[string]float64{pickOf(4096, 4096, 1): 15, "other": 10}}
	}
	write("run-mmvq-cuda.json", []res{hit})
	write("oos-mmvq-loo-cuda-q4_k.json", []res{hit, miss("up"), miss("gate")})
	write("oos2-mmvq-loo-cuda-q4_k.json", []res{miss("down")})
	var md strings.Builder
	if err := mmvqSection(&md, dir, []suiteRun{{"run", nil, 4000, nil}}, "run", mmvqSel{"none,oos,oos2", []string{"fitted"}}); err != nil {
		t.Fatal(err)
	}
	wantIn(t, md.String(),
		"- In-sample, run run (models the keys were fitted on): Q4_K 1 of 1 (100%), worst 1.00x.",
		"- **Held-out models**, run oos and oos2 on the models the keys' thresholds were not fitted on (without fitted): Q4_K 0 of 3 (0%), worst 1.50x.",
	)
	md.Reset() // no selection lines without the flag
	if err := mmvqSection(&md, dir, []suiteRun{{"run", nil, 4000, nil}}, "run", mmvqSel{}); err != nil || strings.Contains(md.String(), "Held-out models") {
		t.Errorf("selection lines without -mmvq-oos-run (err %v):\n%s", err, md.String())
	}
}
