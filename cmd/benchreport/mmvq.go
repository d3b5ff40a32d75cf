package main

import (
	"bufio"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
)

// mmvqFile is gen bench's JSON for a quantized-weight GEMV family, with
// the quantize + GEMV pair (gen bench --pair).
type mmvqFile struct {
	Device, Driver, Backend, Launch string
	// Timing is gen bench --timing: "ggml" (as test-backend-ops times an
	// op) or "rotate" (the default); empty in files from before it existed.
	Timing  string
	Results []struct {
		Model, Layer, Dtype string
		N, K, M             int
		WeightBytes         int64   `json:"weight_bytes"`
		Tuned               string  `json:"tuned"`
		TunedUS             float64 `json:"tuned_us"`
		HeuristicUS         float64 `json:"heuristic_us"`
		PairUS              float64 `json:"pair_us"`
		PairProducer        string  `json:"pair_producer"`
		Forced              string  `json:"forced"`
	} `json:"results"`
}

// ggmlLine is a test-backend-ops perf line: weight type, m, n, k, us/run.
var ggmlLine = regexp.MustCompile(`MUL_MAT\(type_a=(\w+),type_b=f32,m=(\d+),n=(\d+),k=(\d+),.*?([0-9.]+) us/run`)

// readGGML parses ggml's perf log into us per (type, n) for m=4096 k=14336.
func readGGML(path string) map[string]float64 {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := ggmlLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		us, _ := strconv.ParseFloat(m[5], 64)
		out[strings.ToLower(m[1])+"/"+m[3]] = us
	}
	return out
}

// suiteRun is a device call's mmvq suite: its run name, and the bf16
// cuBLAS times (graph), copy bandwidth and same-size reads (none in older
// runs) measured in the same call.
type suiteRun struct {
	run      string
	cubGraph map[cubKey]float64
	copyGBps float64
	reads    map[cubKey]float64
}

// mmvqSection reports the quantized-weight GEMV runs: each suite run's
// files against its own bf16 cuBLAS (graph-timed) and copy bandwidth on the
// quantized bytes, and the ggml shape against ggml's Vulkan mul_mat_vec
// timed in one device call with it (peerRun's files).
//
// With sel.run, the section of each backend whose suites sel.run scores
// ends with how the current keys pick (runtime.Select with the committed
// table, against every timed candidate): in-sample on the suite runs and
// out of sample on sel.run's models outside sel.fit.
func mmvqSection(md *strings.Builder, dir string, suites []suiteRun, peerRun string, sel mmvqSel) error {
	ggml := readGGML(filepath.Join(dir, peerRun+"-ggml-quant.txt"))
	for _, be := range []string{"cuda", "vulkan"} {
		var g mmvqFile
		var fs []mmvqFile
		var runs []suiteRun
		for _, sr := range suites {
			var f mmvqFile
			if read(filepath.Join(dir, sr.run+"-mmvq-"+be+".json"), &f) {
				fs, runs = append(fs, f), append(runs, sr)
			}
		}
		peer := be == "vulkan" && ggml != nil && read(filepath.Join(dir, peerRun+"-mmvq-ggml-"+be+".json"), &g)
		if len(fs) == 0 && !peer {
			continue
		}
		fmt.Fprintf(md, "## Quantized-weight GEMV (mmvq: %s x Q8_1), %s path\n\n", weightTypes(append(fs, g)...), be)
		for i, f := range fs {
			chart := runs[i].run + "-mmvq-" + be + ".png"
			if err := mmvqSuite(md, f, runs[i], filepath.Join(dir, chart)); err != nil {
				return err
			}
		}
		if len(fs) == 0 {
			fmt.Fprintf(md, "The suite was not run on this path; ggml's shape only.\n\n")
		}
		if err := mmvqSelection(md, dir, be, runs, sel); err != nil {
			return err
		}
		if peer {
			chart := peerRun + "-mmvq-ggml-" + be + ".png"
			if len(runs) != 1 || peerRun != runs[0].run {
				fmt.Fprintf(md, "The comparison with ggml below is run %s's (one device call timing both; bench/results/%s-*).\n\n", peerRun, peerRun)
			}
			if err := mmvqPeer(md, g, ggml, filepath.Join(dir, chart)); err != nil {
				return err
			}
			fmt.Fprintf(md, "![mmvq against ggml, %s](bench/results/%s)\n\n", be, chart)
		}
	}
	return nil
}

// mmvqSel names the runs (comma-separated; per backend every one with
// files of it) that score the mmvq keys out of sample (their
// <run>-mmvq-loo-<backend>-<format>.json files, every candidate timed on
// models the keys were not fitted on: bench/mmvq-loo-run.sh) and the models
// the keys were fitted on (left out of that score).
type mmvqSel struct {
	run string
	fit []string
}

// mmvqSelection writes the selection lines of backend be: per weight
// format, the current heuristic within 10% of the fastest timed candidate
// in-sample (each suite run's file) and out of sample (sel.run's files
// without sel.fit's models). Nothing without sel.run or its files.
func mmvqSelection(md *strings.Builder, dir, be string, suites []suiteRun, sel mmvqSel) error {
	if sel.run == "" {
		return nil
	}
	// every one of sel.run's runs with files of this backend (a backend's
	// suite may take several calls, e.g. one per token subset)
	var oos, runs []string
	for _, rn := range strings.Split(sel.run, ",") {
		if fs := globResults(filepath.Join(dir, rn+"-mmvq-loo-"+be+"-*.json")); len(fs) > 0 {
			oos, runs = append(oos, fs...), append(runs, rn)
		}
	}
	if len(oos) == 0 {
		return nil
	}
	run := strings.Join(runs, " and ")
	line := func(paths []string, skip map[string]bool) (string, error) {
		// one backend's files: a group per weight format
		keys, ts, err := tallyEval(paths, "mmvq", skip, func(_ *evalFile, dtype string) string { return strings.ToUpper(dtype) })
		if err != nil {
			return "", err
		}
		var parts []string
		for _, k := range keys {
			t := ts[k]
			n := t.within + t.slower
			if n == 0 {
				continue
			}
			part := fmt.Sprintf("%s %d of %d (%.0f%%), worst %.2fx", k, t.within, n, 100*float64(t.within)/float64(n), t.worst)
			if len(t.unknown) > 0 {
				// a pick the run did not time (a tile newer than the run)
				part += fmt.Sprintf(" (%d more cases pick a variant the run did not time)", len(t.unknown))
			}
			parts = append(parts, part)
		}
		return strings.Join(parts, "; "), nil
	}
	fmt.Fprintf(md, "Selection: `runtime.Select` with the committed table (the keys of templates/archs/), each pick against the fastest timed candidate of its case; within 10%% counts as a hit (`go run ./cmd/benchreport -eval -family mmvq -loo=false FILE`).\n\n")
	for _, sr := range suites {
		l, err := line([]string{filepath.Join(dir, sr.run+"-mmvq-"+be+".json")}, nil)
		if err != nil {
			return err
		}
		fmt.Fprintf(md, "- In-sample, run %s (models the keys were fitted on): %s.\n", sr.run, l)
	}
	skip := map[string]bool{}
	for _, m := range sel.fit {
		skip[m] = true
	}
	l, err := line(oos, skip)
	if err != nil {
		return err
	}
	fmt.Fprintf(md, "- **Held-out models**, run %s on the models the keys' thresholds were not fitted on (without %s): %s. Rules whose structure was written after seeing these models are named in the arch file; leaving one model out with the thresholds refitted per fold is `benchreport -eval -family mmvq` (issue 13's bar: 90%% within 10%%, never over 1.25x).\n\n", run, strings.Join(sel.fit, ", "), l)
	return nil
}

var (
	blue   = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	orange = color.RGBA{R: 255, G: 127, B: 14, A: 255}
)

// mmvqSuite is the suite table against bf16 cuBLAS and the issue-11
// targets, and a chart of each case's speed-up over bf16 cuBLAS (GEMV alone
// and the quantize + GEMV pair) at chart.
func mmvqSuite(md *strings.Builder, f mmvqFile, sr suiteRun, chart string) error {
	var labels []string
	var alone, pair plotter.Values
	{
		cubGraph, copyGBps := sr.cubGraph, sr.copyGBps
		fmt.Fprintf(md, "Run %s on the %s, launches timed %s; cuBLAS is bf16 on the same shapes, graph-timed in the same device call, and `%% copy` divides by that call's copy bandwidth (%.0f GB/s), counting the quantized weight bytes. pair = quantize the f32 activations to Q8_1 (quant_q8_1) + the GEMV, in one timed pass.", sr.run, f.Device, f.Launch, copyGBps)
		reads := len(sr.reads) > 0
		if reads {
			fmt.Fprintf(md, " `%% read` is a read of the same weight bytes (torch sum over them, rotated and graph-timed in the same call) over the GEMV's time: how close the kernel is to the fastest read of its own bytes at that size.")
		}
		md.WriteString("\n\n")
		var m1, m8 []float64
		var m1c, m1r []float64
		// the other weight types' speed-ups at 1 and 8 tokens (no target)
		other := map[string]*[2][]float64{}
		var otherTypes []string
		fmt.Fprintf(md, "| layer | N x K | M | tuned | us | pair us | bf16 cuBLAS us | speedup | %% copy |")
		if reads {
			fmt.Fprintf(md, " %% read |")
		}
		fmt.Fprintf(md, "\n|---|---|---|---|---|---|---|---|---|%s\n", map[bool]string{true: "---|"}[reads])
		for _, r := range f.Results {
			c := cubGraph[cubKey{r.Model, r.Layer, r.M, "bf16"}]
			pct := 100 * float64(r.WeightBytes) / r.TunedUS / 1e3 / copyGBps
			rd := 100 * sr.reads[cubKey{r.Model, r.Layer, 0, r.Dtype}] / r.TunedUS
			big := int64(r.N)*int64(r.K)*2 >= 64<<20
			switch {
			case c == 0 || !big || r.M != 1 && r.M != 8:
			case r.Dtype != "q4_k":
				o := other[r.Dtype]
				if o == nil {
					o = new([2][]float64)
					other[r.Dtype] = o
					otherTypes = append(otherTypes, r.Dtype)
				}
				o[r.M/8] = append(o[r.M/8], c/r.TunedUS)
			case r.M == 1:
				m1 = append(m1, c/r.TunedUS)
				m1c = append(m1c, pct)
				if rd > 0 {
					m1r = append(m1r, rd)
				}
			default:
				m8 = append(m8, c/r.TunedUS)
			}
			pairUS := "-" // a suite timed without --pair
			if r.PairUS > 0 {
				pairUS = fmt.Sprintf("%.1f", r.PairUS)
			}
			fmt.Fprintf(md, "| %s %s | %dx%d | %d | %s | %.1f | %s | %.1f | %.2f | %.0f%% |", r.Model, r.Layer, r.N, r.K, r.M, r.Tuned, r.TunedUS, pairUS, c, c/r.TunedUS, pct)
			switch {
			case !reads:
			case rd > 0:
				fmt.Fprintf(md, " %.0f%% |", rd)
			default:
				md.WriteString(" - |")
			}
			md.WriteString("\n")
			if c > 0 && big && r.Dtype == "q4_k" {
				labels = append(labels, fmt.Sprintf("%s %s m%d", short(r.Model), r.Layer, r.M))
				pr := 0.0
				if r.PairUS > 0 {
					pr = c / r.PairUS
				}
				alone, pair = append(alone, c/r.TunedUS), append(pair, pr)
			}
		}
		on := offTarget(", measured on the %s, not the %s the targets name", f.Device)
		md.WriteString("\n")
		if len(m1)+len(m8) > 0 { // the targets are Q4_K's
			fmt.Fprintf(md, "Against the targets (issue 11; shapes with >= 64 MiB of bf16 weights%s): Q4_K at M = 1 %s faster than bf16 cuBLAS (target >= 3x); at M = 8 %s (target >= 2.5x); %% of copy on the quantized bytes at M = 1: %s (target >= 85%%).\n\n",
				on, span(m1, "x"), span(m8, "x"), span(m1c, "%"))
			if len(m1r) > 0 {
				fmt.Fprintf(md, "Beside that target (not instead of it): at M = 1 the same shapes take %s of a same-size read's time (`%% read`).\n\n", span(m1r, "%"))
			}
		}
		for _, d := range otherTypes {
			fmt.Fprintf(md, "%s (no target), the same shapes: M = 1 %s faster than bf16 cuBLAS; M = 8 %s.\n\n", strings.ToUpper(d), span(other[d][0], "x"), span(other[d][1], "x"))
		}
	}
	if len(labels) == 0 {
		return nil
	}
	fmt.Fprintf(md, "The chart: Q4_K cases with >= 64 MiB of bf16 weights, bf16 cuBLAS time / kgen time (targets 3x at M = 1, 2.5x at M = 8).\n\n")
	if err := bars(chart, "mmvq Q4_K x Q8_1, "+f.Backend+": speed-up over bf16 cuBLAS", "x faster than bf16 cuBLAS", labels, []series{
		{"kgen GEMV alone", alone, blue},
		{"kgen quantize + GEMV", pair, orange},
	}); err != nil {
		return err
	}
	fmt.Fprintf(md, "![mmvq %s](bench/results/%s)\n\n", f.Backend, filepath.Base(chart))
	return nil
}

// mmvqPeer compares the ggml shape with ggml's Vulkan mul_mat_vec timed in
// the same run.
func mmvqPeer(md *strings.Builder, g mmvqFile, ggml map[string]float64, chart string) error {
	var labels []string
	var alone, pair plotter.Values
	fmt.Fprintf(md, "ggml's Vulkan mul_mat_vec (test-backend-ops, same device call, %s; its time includes its own Q8_1 quantization, so it compares with kgen's pair) at m=4096, k=14336. ", g.Device)
	same := g.Timing == "ggml"
	if same {
		fmt.Fprintf(md, "Both sides timed as test-backend-ops times an op (kgen: `gen bench --timing ggml`): the op repeated on the same buffers in one command buffer, host wall clock over the repeats.")
	} else {
		fmt.Fprintf(md, "NOT timed the same way: ggml times host wall clock over a repeated graph on the same buffers, kgen Vulkan timestamps over rotated buffers in one command buffer (timing %q); these ratios are not a result.", g.Timing)
	}
	if len(g.Results) > 0 && g.Results[0].Forced != "" {
		fmt.Fprintf(md, " kgen's candidates were narrowed by KGEN_FORCE=%s: tuned is the fastest of those.", g.Results[0].Forced)
	}
	fmt.Fprintf(md, "\n\n")
	var verdicts []string
	fmt.Fprintf(md, "| weights | n | kgen GEMV us | kgen pair us | ggml us | ggml / kgen GEMV | ggml / kgen pair |\n|---|---|---|---|---|---|---|\n")
	for _, r := range g.Results {
		gu := ggml[r.Dtype+"/"+strconv.Itoa(r.M)]
		if gu == 0 { // ggml's run ended before this case: no figure, not a zero
			fmt.Fprintf(md, "| %s | %d | %.1f | %.1f | not run | - | - |\n", r.Dtype, r.M, r.TunedUS, r.PairUS)
			continue
		}
		fmt.Fprintf(md, "| %s | %d | %.1f | %.1f | %.1f | %.2f | %.2f |\n", r.Dtype, r.M, r.TunedUS, r.PairUS, gu, gu/r.TunedUS, gu/r.PairUS)
		if r.Dtype == "q4_k" && same {
			if want := peerTarget(r.M); want > 0 {
				v := "met"
				if gu/r.PairUS < want {
					v = "MISSED"
				}
				verdicts = append(verdicts, fmt.Sprintf("n = %d %.2fx (target %.1fx): %s", r.M, gu/r.PairUS, want, v))
			}
		}
		{
			labels = append(labels, fmt.Sprintf("%s n%d", r.Dtype, r.M))
			alone, pair = append(alone, gu/r.TunedUS), append(pair, gu/r.PairUS)
		}
	}
	fmt.Fprintf(md, "\nTarget (issue 11, on the %s): the Vulkan path at least %gx ggml's q4_K time at n = 1 and %gx at n = %d..%d (a ratio above 1 means kgen is faster).\n\n", peerTargetDevice, peerTargetN1, peerTargetMany, peerManyFrom, peerManyTo)
	if len(verdicts) > 0 {
		// the same ratios, but not the acceptance run: say so where the verdicts are
		on := offTarget(" on the %s, not the %s the target names", g.Device)
		fmt.Fprintf(md, "Against it (ggml / kgen pair, q4_k%s): %s.\n\n", on, strings.Join(verdicts, "; "))
	}
	if len(labels) == 0 {
		return nil
	}
	return bars(chart, "mmvq against ggml's Vulkan mul_mat_vec (m=4096, k=14336)", "ggml time / kgen time", labels, []series{
		{"kgen GEMV alone", alone, blue},
		{"kgen quantize + GEMV", pair, orange},
	})
}

// peerTarget is issue 11's Vulkan target at n tokens (ggml's q4_K time
// over kgen's pair), 0 where it sets none.
func peerTarget(n int) float64 {
	switch {
	case n == 1:
		return peerTargetN1
	case n >= peerManyFrom && n <= peerManyTo:
		return peerTargetMany
	}
	return 0
}

// Issue 11's Vulkan targets, as ratios of ggml's q4_K time to kgen's pair,
// on the device they are set on.
const (
	peerTargetDevice         = "NVIDIA H200"
	peerTargetN1             = 1.2
	peerTargetMany           = 2.0
	peerManyFrom, peerManyTo = 4, 8
)

// offTarget is "" for a file measured on the card issue 11's targets name,
// else format filled with the file's device and that card.
func offTarget(format, device string) string {
	if strings.Contains(device, peerTargetDevice) {
		return ""
	}
	return fmt.Sprintf(format, device, peerTargetDevice)
}

// weightTypes names the weight formats of the files' results ("Q4_K, Q6_K").
func weightTypes(fs ...mmvqFile) string {
	var names []string
	seen := map[string]bool{}
	for _, f := range fs {
		for _, r := range f.Results {
			if !seen[r.Dtype] {
				seen[r.Dtype] = true
				names = append(names, strings.ToUpper(r.Dtype))
			}
		}
	}
	if len(names) == 0 {
		return "Q4_K"
	}
	return strings.Join(names, ", ")
}

// span is "min-max unit over n" of v.
func span(v []float64, unit string) string {
	if len(v) == 0 {
		return "(no such cases)"
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	if unit == "%" {
		return fmt.Sprintf("%.0f-%.0f%% over %d shapes", lo, hi, len(v))
	}
	return fmt.Sprintf("%.2f-%.2f%s over %d shapes", lo, hi, unit, len(v))
}
