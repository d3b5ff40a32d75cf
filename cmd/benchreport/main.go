// Command benchreport writes BENCHMARKS.md and one PNG chart per backend
// from a GPU run's JSON files (gen bench and bench/cublas.py outputs), so
// the committed tables and charts always match the committed numbers.
//
//	go run ./cmd/benchreport -run h200-2026-11-30
//
// With -eval it instead re-runs runtime.Select with the current generated
// table on every model-suite case (the GEMV family's, unless the results name
// another) of the given gen bench JSON files and reports how
// many picks are within 10% of the tuned time (from the results' times):
// how rule changes in templates/archs/*.yaml are evaluated without a GPU.
//
//	go run ./cmd/gen && go run ./cmd/benchreport -eval bench/results/RUN-cuda.json bench/results/RUN-vulkan.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"image/color"
	"log"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

type kgenFile struct {
	Device, Driver, Backend, Arch string
	// Launch is how the CUDA timer launched (graph, eager; "" in files
	// from before it was recorded: eager) or command-buffer (Vulkan).
	Launch      string
	NotEligible []skipped `json:"not_eligible"`
	Results     []struct {
		Model, Layer, Dtype string
		N, K, M             int
		WeightBytes         int64   `json:"weight_bytes"`
		Bytes               int64   `json:"bytes"`
		Heuristic           string  `json:"heuristic"`
		HeuristicUS         float64 `json:"heuristic_us"`
		Tuned               string  `json:"tuned"`
		TunedUS             float64 `json:"tuned_us"`
		Candidates          int     `json:"candidates"`
		TuneSeconds         float64 `json:"tune_seconds"`
		// Times is every candidate's time (newer runs only).
		Times map[string]float64 `json:"times"`
	}
}

type cublasFile struct {
	Device   string  `json:"device"`
	Torch    string  `json:"torch"`
	CopyGBps float64 `json:"copy_gbps"`
	ReadGBps float64 `json:"read_gbps"`
	Results  []struct {
		Model, Layer, Dtype string
		N, K, M             int
		US                  float64 `json:"us"`
		// EagerUS and GraphUS: the same launches eager and inside a
		// torch.cuda.CUDAGraph (files from before graph timing: US only).
		EagerUS float64 `json:"eager_us"`
		GraphUS float64 `json:"graph_us"`
	} `json:"results"`
	// Reads are same-size reads of quantized weight bytes (cublas.py's
	// fourth argument; newer runs only).
	Reads []struct {
		Model, Layer, Dtype string
		GraphUS             float64 `json:"graph_us"`
	} `json:"reads"`
	// Floor is a one-element kernel timed both ways.
	Floor *struct {
		Kernel      string  `json:"kernel"`
		GraphNodeUS float64 `json:"graph_node_us"`
		EagerNodeUS float64 `json:"eager_node_us"`
	} `json:"floor"`
}

// times are cuBLAS's times per case as the kgen file was timed: graph
// against graph, eager against eager (files from before graph timing: its
// one eager time for both).
func (c cublasFile) times() (graph, eager map[cubKey]float64) {
	graph, eager = map[cubKey]float64{}, map[cubKey]float64{}
	for _, r := range c.Results {
		k := cubKey{r.Model, r.Layer, r.M, r.Dtype}
		eager[k], graph[k] = r.US, r.US
		if r.EagerUS > 0 {
			eager[k] = r.EagerUS
		}
		if r.GraphUS > 0 {
			graph[k] = r.GraphUS
		}
	}
	return graph, eager
}

// reads are the same-size reads' graph times per (model, layer, dtype:
// token count 0).
func (c cublasFile) reads() map[cubKey]float64 {
	out := map[cubKey]float64{}
	for _, r := range c.Reads {
		out[cubKey{r.Model, r.Layer, 0, r.Dtype}] = r.GraphUS
	}
	return out
}

// cubKey is a cuBLAS case: model, layer, token count, dtype.
type cubKey struct {
	model, layer string
	m            int
	dtype        string
}

func read(path string, v any) bool {
	b, err := readResult(path)
	if err != nil {
		return false
	}
	if err := json.Unmarshal(b, v); err != nil {
		log.Fatalf("%s: %v", path, err)
	}
	return true
}

func main() {
	run := flag.String("run", "h200-2026-11-30", "result file prefix under bench/results")
	dir := flag.String("dir", "bench/results", "results directory")
	out := flag.String("out", "BENCHMARKS.md", "markdown output")
	eval := flag.Bool("eval", false, "evaluate the current heuristic on the model-suite cases of the JSON files given as arguments")
	family := flag.String("family", "gemv", "-eval: the family of results that do not name theirs (files from before gen bench recorded it)")
	fit := flag.Bool("fit", false, "fit the arch's model constants (templates/archs/*.yaml model:) on all cases of the JSON files given as arguments and print them")
	loo := flag.Bool("loo", true, "-eval: also score the arch's model keys leaving one model out (fit on the others, score the held-out one)")
	init := flag.String("init", "", "-fit, -eval: start the fit from these constants (name=value,...) instead of the committed ones")
	exclude := flag.String("exclude-models", "", "-eval: leave these models' cases (comma-separated) out of the committed heuristic's score (e.g. the ones its keys were fitted on)")
	detail := flag.Bool("v", false, "-eval: list every held-out case the model picks more than 10% slow")
	mmvqRun := flag.String("mmvq-run", "", "take the mmvq suite sections from these runs' (comma-separated) -mmvq-cuda.json and -mmvq-vulkan.json, each compared with its own -cublas.json and copy bandwidth (device calls of their own)")
	mmvqOOS := flag.String("mmvq-oos-run", "", "score the mmvq keys out of sample on these runs' (comma-separated; per backend every one that has them) -mmvq-loo-<backend>-<format>.json files (bench/mmvq-loo-run.sh), leaving out -mmvq-fit-models")
	mmvqFit := flag.String("mmvq-fit-models", "qwen3-0.6b,llama-3.1-8b,qwen3-32b,dense-27b", "the models the mmvq keys were fitted on (comma-separated): left out of -mmvq-oos-run's score")
	peerRun := flag.String("mmvq-peer-run", "", "take the Vulkan mmvq comparison with ggml from this run's -mmvq-ggml-vulkan.json and -ggml-quant.txt (a device call timing both)")
	quantRun := flag.String("quant-run", "", "take the quantizer sections from this run's -quant-cuda.json and -quant-vulkan.json, with its -copy.txt and -empty.txt (a device call of their own)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file (e.g. of -eval or -fit)")
	stats := flag.Bool("stats", false, "list each case's timed variants, fastest first, with the driver's pipeline statistics (gen bench JSON files with pipeline_stats, given as arguments)")
	abA := flag.String("ab", "", "compare two builds timed in one call: this side's gen bench JSON files (comma-separated passes) against -ab-b's, per case (tuned time), per tile, with each side's pass-to-pass spread")
	abB := flag.String("ab-b", "", "-ab: the other side's gen bench JSON files (comma-separated passes)")
	flag.IntVar(&fitJitters, "fit-starts", fitJitters, "-fit, -eval: Levenberg-Marquardt starts around the prior besides the prior itself, the best kept by its picks on the cases fitted (0: the prior alone; each start adds about one fit's time)")
	flag.Parse()
	if fitJitters < 0 {
		log.Fatal("-fit-starts: want 0 or more")
	}
	if *abA != "" || *abB != "" {
		if *abA == "" || *abB == "" {
			log.Fatal("-ab A.json[,A2.json] -ab-b B.json[,B2.json]: give both sides")
		}
		runAB(*abA, *abB)
		return
	}
	if *stats {
		if flag.NArg() == 0 {
			log.Fatal("-stats: give gen bench JSON files")
		}
		if err := statsReport(os.Stdout, flag.Args()); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if *eval || *fit {
		if flag.NArg() == 0 {
			log.Fatal("-eval, -fit: give gen bench JSON files")
		}
		skip := map[string]bool{}
		for _, m := range strings.Split(*exclude, ",") {
			if m != "" {
				skip[m] = true
			}
		}
		if *eval {
			if err := evaluateSkip(os.Stdout, flag.Args(), *family, skip); err != nil {
				log.Fatal(err)
			}
		}
		if *fit || *loo {
			sets, err := loadFitSets(flag.Args(), *family)
			if err != nil {
				log.Fatal(err)
			}
			if *fit {
				err = fitReport(os.Stdout, sets, *init)
			} else {
				err = looReport(os.Stdout, sets, *init, *detail)
			}
			if err != nil {
				log.Fatal(err)
			}
		}
		return
	}
	var cub cublasFile
	if !read(filepath.Join(*dir, *run+"-cublas.json"), &cub) {
		log.Fatalf("no %s-cublas.json", *run)
	}
	cubGraph, cubEager := cub.times()
	date := strings.TrimPrefix(*run, "h200-")
	if len(date) > 10 {
		date = date[:10]
	}
	var md strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&md, f, a...) }
	cmdline := "-run " + *run
	if *quantRun != "" {
		cmdline += " -quant-run " + *quantRun
	}
	if *mmvqRun != "" {
		cmdline += " -mmvq-run " + *mmvqRun
	}
	if *peerRun != "" {
		cmdline += " -mmvq-peer-run " + *peerRun
	}
	if *mmvqOOS != "" {
		cmdline += " -mmvq-oos-run " + *mmvqOOS
		if f := flag.Lookup("mmvq-fit-models"); f.Value.String() != f.DefValue {
			cmdline += " -mmvq-fit-models " + *mmvqFit
		}
	}
	p("# Benchmarks\n\nGenerated by `go run ./cmd/benchreport %s` from bench/results/%s-*.json (and the runs named by its flags); do not edit.\n", cmdline, *run)
	p("Reproduce on the GPU machine with `bash bench/h200-run.sh verify cublas cuda eager fp8 vulkan quant mmvq` (see the\nscript: it needs `bin/gen`, built with `CGO_ENABLED=0 go build -o bin/gen ./cmd/gen`, the Vulkan loader .debs in\n`.gl/` and, for ggml's peer, `.peers/ggml-vulkan`), then copy the files of its archive here as `<run>-cuda.json`,\n`-cuda-eager.json`, `-cuda-fp8.json`, `-vulkan.json`, `-cublas.json`, `-quant-cuda.json`, `-quant-vulkan.json`,\n`-mmvq-cuda.json`, `-mmvq-vulkan.json`, `-mmvq-ggml-cuda.json`, `-mmvq-ggml-vulkan.json`, `-ggml-quant.txt`.\n\n")
	p("## How each number was measured\n\n")
	p("- Card: %s. Date: %s. cuBLAS: torch %s, `torch.nn.functional.linear`.\n", cub.Device, date, cub.Torch)
	p("- Every time is the median of %s GPU timings (CUDA events; Vulkan timestamps) after 3 warm-up repetitions. Each timing\n  launches the kernel once per weight copy, the buffers rotated over copies totalling >= 512 MiB (the L2 is 50 MB), and\n  divides by the copies; random data, never zeros. cuBLAS is timed the same way, in the same machine session.\n", runReps(*dir, *run))
	p("- How launches are timed, both sides alike: **graph** (the default of `gen bench --backend cuda`) captures one timed pass\n  (a launch per rotated copy) into a CUDA graph once and times its replays with events, as serving engines run decode;\n  cuBLAS is captured the same way in a `torch.cuda.CUDAGraph`. **eager** launches every kernel from the host inside the\n  timed region (kgen from Go through the driver API, cuBLAS from Python), so eager minus graph is launch overhead.\n  Each kgen table is compared with cuBLAS timed its way. The Vulkan path records every timed dispatch in one command\n  buffer (no host launch between kernels) and reads timestamps; it is compared with graph-timed cuBLAS.\n")
	if cub.Floor != nil {
		p("- Floor (%s, per launch): %.2f us inside a CUDA graph, %.2f us eager from Python.\n", cub.Floor.Kernel, cub.Floor.GraphNodeUS, cub.Floor.EagerNodeUS)
	}
	p("- GB/s counts weight + x + y bytes. Copy bandwidth, measured in the same run (4 GiB torch copy, read + write counted):\n  **%.0f GB/s**; read-only (torch sum over 4 GiB): %.0f GB/s. `%% copy` = achieved GB/s / copy GB/s.\n", cub.CopyGBps, cub.ReadGBps)
	if notes, err := os.ReadFile(filepath.Join(*dir, *run+"-notes.md")); err == nil && len(notes) > 0 {
		p("- Read the notes at the end (how this run went, what is missing).\n")
	}
	p("- heuristic = `runtime.Select`'s pick from the spec rules (templates/archs/sm90.yaml and nvidia.yaml, kernels.yaml).\n  tuned = `runtime.Tune`'s pick: the fastest of the heuristic and every eligible variant with its pack and tokens\n  (rows, tile and workgroup swept), as `gen tune` records it in the tuning cache.\n\n")

	files := []struct{ suffix, title string }{
		{"-cuda.json", "CUDA path: the sm90 HIP sources through nvcc -O3 -arch=sm_90, CUDA driver API"},
		{"-cuda-eager.json", "CUDA path, eager launches (the same cases; compare with the graph-timed table for launch overhead)"},
		{"-cuda-fp8.json", "CUDA path, fp8 e4m3 weights (per-row f32 scale) with bf16 activations"},
		{"-vulkan.json", "Vulkan path: the SPIR-V blobs through NVIDIA's Vulkan driver (device class nvidia)"},
	}
	for _, f := range files {
		var k kgenFile
		if !read(filepath.Join(*dir, *run+f.suffix), &k) {
			continue
		}
		p("## %s\n\n", f.title)
		launch := k.Launch
		if launch == "" {
			launch = "eager"
		}
		cubUS := cubGraph
		if launch == "eager" {
			cubUS = cubEager
		}
		p("Device %s, driver %s, %d cases, launches timed %s; cuBLAS %s-timed.", k.Device, k.Driver, len(k.Results), launch, map[bool]string{true: "eager", false: "graph"}[launch == "eager"])
		if strings.Contains(f.suffix, "vulkan") && len(k.Results) < 84 {
			p(" **Incomplete: the run was cut at its time limit after %d of 84 cases** (device time ran out); the missing cases are not measured.", len(k.Results))
		}
		if strings.Contains(f.suffix, "fp8") {
			p(" cuBLAS ratios compare with cuBLAS **bf16** (torch has no fp8 GEMV with per-row scales in this run); the fp8 weights move half the bytes.")
		}
		p("\n\n")
		var n, faster, close, known, small, smallOK, big, bigOK, mid, midOK int
		var m1, m8 []float64
		var speed []float64
		type row struct {
			label          string
			tuned, heur, c float64
		}
		var rows []row
		var table strings.Builder
		table.WriteString("| layer | N x K | MiB | M | heuristic | us | tuned | us | % copy | cuBLAS us | tuned / cuBLAS |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		var tuneSec float64
		for _, r := range k.Results {
			n++
			tuneSec += r.TuneSeconds
			cd := r.Dtype
			if strings.HasPrefix(cd, "fp8") {
				cd = "bf16"
			}
			c := cubUS[cubKey{r.Model, r.Layer, r.M, cd}]
			gbps := float64(r.Bytes) / r.TunedUS / 1e3
			pct := 100 * gbps / cub.CopyGBps
			mib := float64(r.WeightBytes) / (1 << 20)
			if c > 0 && r.TunedUS <= c {
				faster++
			}
			if h, ok := heuristicUS(r.Heuristic, r.HeuristicUS, r.Times); ok {
				known++
				if h <= 1.10*r.TunedUS {
					close++
				}
			}
			if mib >= 8 && c > 0 {
				big++
				if r.TunedUS <= c {
					bigOK++
				}
			}
			if mib >= 8 && mib < 64 && r.M == 1 && c > 0 {
				mid++
				if c >= 1.25*r.TunedUS {
					midOK++
				}
			}
			if mib < 8 && c > 0 {
				small++
				if r.TunedUS <= 0.7*c {
					smallOK++
				}
			}
			if mib >= 64 && r.M == 1 {
				m1 = append(m1, pct)
			}
			if mib >= 64 && r.M == 8 {
				m8 = append(m8, pct)
			}
			if c > 0 {
				speed = append(speed, c/r.TunedUS)
			}
			rows = append(rows, row{fmt.Sprintf("%s %s m%d", short(r.Model), r.Layer, r.M), pct, 100 * float64(r.Bytes) / r.HeuristicUS / 1e3 / cub.CopyGBps, 100 * float64(r.Bytes) / c / 1e3 / cub.CopyGBps})
			fmt.Fprintf(&table, "| %s %s | %dx%d | %.0f | %d | %s | %.1f | %s | %.1f | %.0f%% | %.1f | %.2f |\n",
				r.Model, r.Layer, r.N, r.K, mib, r.M, r.Heuristic, r.HeuristicUS, r.Tuned, r.TunedUS, pct, c, r.TunedUS/c)
		}
		p("Against the targets:\n\n")
		p("- M = 1, shapes with >= 64 MiB of weights, tuned: %s of copy bandwidth (target >= 95%%).\n", minMax(m1))
		p("- M = 8, same shapes: %s (target >= 90%%).\n", minMax(m8))
		p("- Tuned no slower than cuBLAS: %d of %d cases; on shapes with >= 8 MiB of weights %d of %d (target: all).\n", faster, n, bigOK, big)
		p("- Shapes of 8-64 MiB at M = 1, tuned at least 1.25x faster than cuBLAS: %d of %d.\n", midOK, mid)
		p("- Shapes under 8 MiB of weights at <= 0.7x cuBLAS time: %d of %d (target: all).\n", smallOK, small)
		p("- Heuristic within 10%% of tuned: %d of %d cases (%.0f%%; target >= 90%%).\n", close, known, 100*float64(close)/float64(max(known, 1)))
		if tuneSec > 0 {
			p("- Tuning time (all cases, inside this run): %.1f s.\n", tuneSec)
		}
		notEligible(&md, k.NotEligible)
		p("\n")
		chart := *run + strings.TrimSuffix(f.suffix, ".json") + ".png"
		labels := make([]string, len(rows))
		tv, hv, cv := make(plotter.Values, len(rows)), make(plotter.Values, len(rows)), make(plotter.Values, len(rows))
		for i, r := range rows {
			labels[i], tv[i], hv[i], cv[i] = r.label, r.tuned, r.heur, r.c
		}
		if err := barChart(filepath.Join(*dir, chart), f.title, labels, tv, hv, cv); err != nil {
			log.Fatal(err)
		}
		p("![%s](bench/results/%s)\n\n", f.title, chart)
		md.WriteString(table.String())
		md.WriteString("\n")
		_ = speed
	}
	launchOverhead(&md, *dir, *run, cubGraph, cubEager)
	prun := *run
	if *peerRun != "" {
		prun = *peerRun
	}
	// The mmvq suites: this run's files, or each -mmvq-run's with the
	// cuBLAS times and copy bandwidth of that call.
	suites := []suiteRun{{*run, cubGraph, cub.CopyGBps, cub.reads()}}
	if *mmvqRun != "" {
		suites = nil
		for _, mr := range strings.Split(*mmvqRun, ",") {
			var mc cublasFile
			if !read(filepath.Join(*dir, mr+"-cublas.json"), &mc) {
				log.Fatalf("no %s-cublas.json: -mmvq-run compares each suite with cuBLAS timed in the same device call", mr)
			}
			g, _ := mc.times()
			suites = append(suites, suiteRun{mr, g, mc.CopyGBps, mc.reads()})
		}
	}
	sel := mmvqSel{run: *mmvqOOS}
	for _, m := range strings.Split(*mmvqFit, ",") {
		if m != "" {
			sel.fit = append(sel.fit, m)
		}
	}
	if err := mmvqSection(&md, *dir, suites, prun, sel); err != nil {
		log.Fatal(err)
	}
	// The quantizer sections: this run's files, or -quant-run's (its own
	// device call, with its copy bandwidth and empty-kernel floor).
	qrun, fl := *run, runFloors{CopyGBps: cub.CopyGBps}
	if *quantRun != "" {
		qrun = *quantRun
		var err error
		if fl, err = quantRunFloors(*dir, qrun); err != nil {
			log.Fatal(err)
		}
	}
	for _, f := range []struct{ suffix, title string }{
		{"-quant-cuda.json", "Activation quantizers, CUDA path (sm90 HIP sources through nvcc)"},
		{"-quant-vulkan.json", "Activation quantizers, Vulkan path"},
	} {
		var q quantFile
		if !read(filepath.Join(*dir, qrun+f.suffix), &q) {
			continue
		}
		// Each path's own floors: CUDA an empty kernel in a graph of
		// launches, Vulkan an empty shader among dispatches in one
		// command buffer (cmd/vktime).
		pf, how := fl.CUDA, "an empty kernel launched as gen bench launches (graph of 64)"
		if q.Backend != "cuda" {
			pf, how = fl.Vulkan, "an empty shader dispatched as gen bench dispatches (one command buffer, a barrier between dispatches; cmd/vktime)"
		}
		if qrun != *run {
			fmt.Fprintf(&md, "## %s\n\nFrom run %s, a device call of its own (bench/results/%s-*): its copy bandwidth %.0f GB/s", f.title, qrun, qrun, fl.CopyGBps)
			if pf.EmptyUS > 0 {
				fmt.Fprintf(&md, "; %s took %.2f us", how, pf.EmptyUS)
			}
			if pf.RowUS > 0 {
				fmt.Fprintf(&md, "; a kernel that only moves one row's bytes (K = 4096 f32 in, 128 Q8_1 blocks out), launched the same way, %.2f us", pf.RowUS)
			}
			if pf.CopyGBps > 0 {
				fmt.Fprintf(&md, "; a copy shader on this path (bench/vk/copy.comp, timed the same way) moved %.0f GB/s", pf.CopyGBps)
			}
			md.WriteString(".\n\n")
		}
		if err := quantSection(&md, *dir, qrun, f.title, q, fl.CopyGBps, pf, qrun != *run); err != nil {
			log.Fatal(err)
		}
	}
	if notes, err := os.ReadFile(filepath.Join(*dir, *run+"-notes.md")); err == nil {
		md.WriteString(string(notes))
	}
	// Each other run's notes once, after the main run's.
	seen := map[string]bool{*run: true}
	others := []string{qrun, prun}
	for _, sr := range suites {
		others = append(others, sr.run)
	}
	for _, other := range others {
		if seen[other] {
			continue
		}
		seen[other] = true
		if notes, err := os.ReadFile(filepath.Join(*dir, other+"-notes.md")); err == nil {
			md.WriteString("\n" + string(notes))
		}
	}
	if err := os.WriteFile(*out, []byte(md.String()), 0o644); err != nil {
		log.Fatal(err)
	}
}

// runReps says how many timings each median of the run's gen bench files
// took; files from before the count was recorded say only the default.
func runReps(dir, run string) string {
	seen := map[int]bool{}
	var counts []string
	files := globResults(filepath.Join(dir, run+"-*.json"))
	for _, f := range files {
		var k struct {
			Backend string
			Reps    int
		}
		if !read(f, &k) || k.Backend == "" {
			continue // not a gen bench file (cuBLAS)
		}
		if !seen[k.Reps] {
			seen[k.Reps] = true
			c := strconv.Itoa(k.Reps)
			if k.Reps == 0 {
				c = "--reps (not recorded; default 20)"
			}
			counts = append(counts, c)
		}
	}
	if len(counts) == 0 {
		return "--reps (not recorded; default 20)"
	}
	return strings.Join(counts, " or ")
}

func short(model string) string {
	return strings.NewReplacer("qwen3-", "q", "llama-3.1-", "l", "dense-", "d").Replace(model)
}

func minMax(v []float64) string {
	if len(v) == 0 {
		return "no such cases measured"
	}
	sort.Float64s(v)
	return fmt.Sprintf("min %.0f%%, max %.0f%% over %d shapes", v[0], v[len(v)-1], len(v))
}

// quantChart plots % of copy bandwidth per quantizer case: best tile and
// the thread baseline.
func quantChart(path, title string, labels []string, best, thread plotter.Values) error {
	return bars(path, title, pctCopy, labels, []series{
		{"best tile", best, color.RGBA{R: 31, G: 119, B: 180, A: 255}},
		{"thread (baseline)", thread, color.RGBA{R: 255, G: 127, B: 14, A: 255}},
	})
}

type series struct {
	name string
	v    plotter.Values
	c    color.RGBA
}

// barChart plots % of copy bandwidth per case: tuned, heuristic, cuBLAS.
func barChart(path, title string, labels []string, tuned, heur, cub plotter.Values) error {
	return bars(path, title, pctCopy, labels, []series{
		{"kgen tuned", tuned, color.RGBA{R: 31, G: 119, B: 180, A: 255}},
		{"kgen heuristic", heur, color.RGBA{R: 255, G: 127, B: 14, A: 255}},
		{"cuBLAS", cub, color.RGBA{R: 44, G: 160, B: 44, A: 255}},
	})
}

const pctCopy = "% of copy bandwidth"

// bars draws grouped bars of ylabel's quantity, one group per label.
func bars(path, title, ylabel string, labels []string, ss []series) error {
	pl := plot.New()
	pl.Title.Text = title
	pl.Y.Label.Text = ylabel
	w := vg.Points(3)
	for i, b := range ss {
		off := w * vg.Length(2*i-(len(ss)-1)) / 2
		for i := range b.v {
			if math.IsNaN(b.v[i]) || math.IsInf(b.v[i], 0) {
				b.v[i] = 0
			}
		}
		bc, err := plotter.NewBarChart(b.v, w)
		if err != nil {
			return err
		}
		bc.Color, bc.LineStyle.Width, bc.Offset = b.c, 0, off
		pl.Add(bc)
		pl.Legend.Add(b.name, bc)
	}
	pl.Legend.Top = true
	pl.NominalX(labels...)
	pl.X.Tick.Label.Rotation = math.Pi / 2
	pl.X.Tick.Label.XAlign = -1.0
	pl.X.Tick.Label.YAlign = -0.5
	pl.X.Tick.Label.Font.Size = vg.Points(6)
	return pl.Save(vg.Length(len(labels))*12+100, 420, path)
}

// launchOverhead puts the graph- and eager-timed CUDA runs side by side, for
// kgen and cuBLAS, so the launch overhead each timing includes is visible.
func launchOverhead(md *strings.Builder, dir, run string, cubGraph, cubEager map[cubKey]float64) {
	var g, e kgenFile
	if !read(filepath.Join(dir, run+"-cuda.json"), &g) || !read(filepath.Join(dir, run+"-cuda-eager.json"), &e) {
		return
	}
	type ck struct {
		model, layer string
		m            int
	}
	eager := map[ck]float64{}
	for _, r := range e.Results {
		eager[ck{r.Model, r.Layer, r.M}] = r.TunedUS
	}
	fmt.Fprintf(md, "## Launch overhead: graph and eager timing side by side (CUDA path, bf16, tuned picks)\n\n")
	fmt.Fprintf(md, "The same cases timed both ways in one run; eager - graph is what host launches add per kernel.\n\n")
	fmt.Fprintf(md, "| layer | M | kgen graph us | kgen eager us | cuBLAS graph us | cuBLAS eager us | kgen / cuBLAS (graph) | kgen / cuBLAS (eager) |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range g.Results {
		ke := eager[ck{r.Model, r.Layer, r.M}]
		cg, ce := cubGraph[cubKey{r.Model, r.Layer, r.M, r.Dtype}], cubEager[cubKey{r.Model, r.Layer, r.M, r.Dtype}]
		if ke == 0 || cg == 0 {
			continue
		}
		fmt.Fprintf(md, "| %s %s | %d | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f |\n", r.Model, r.Layer, r.M, r.TunedUS, ke, cg, ce, r.TunedUS/cg, ke/ce)
	}
	md.WriteString("\n")
}
