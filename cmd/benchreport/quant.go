package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
)

// quantFile is the output of `gen bench` for rows x k families (the
// quantizers).
type quantFile struct {
	Device, Driver, Backend, Arch string
	Results                       []quantResult
	NotEligible                   []skipped `json:"not_eligible"`
}

// skipped is a case gen bench reported as not eligible and did not time.
type skipped struct {
	Op     string `json:"op"`
	Reason string `json:"reason"`
}

// notEligible lists the cases a run did not time, if any.
func notEligible(w io.Writer, s []skipped) {
	if len(s) == 0 {
		return
	}
	fmt.Fprintf(w, "- Not eligible, reported by gen bench and not timed: %d cases.\n", len(s))
	for _, c := range s {
		fmt.Fprintf(w, "  - %s: %s\n", c.Op, c.Reason)
	}
}

type quantResult struct {
	Family      string             `json:"family"`
	Rows        int                `json:"rows"`
	K           int                `json:"k"`
	Dtype       string             `json:"dtype"`
	Bytes       int64              `json:"bytes"`
	Heuristic   string             `json:"heuristic"`
	HeuristicUS float64            `json:"heuristic_us"`
	Tuned       string             `json:"tuned"`
	TunedUS     float64            `json:"tuned_us"`
	ThreadUS    float64            `json:"thread_us"`
	BestTile    string             `json:"best_tile"`
	BestUS      float64            `json:"best_us"`
	Speedup     float64            `json:"speedup"`
	BestGBps    float64            `json:"best_gbps"`
	Times       map[string]float64 `json:"times"`
}

// quantSection writes the quantizer tables, one chart per family (into dir,
// named run-quant-<backend>-<family>.png) and the two targets with their
// measured numbers. copyGBps is the run's copy bandwidth (0: unknown).
// pf is the file's own path's floors in the same run (zeros: unknown);
// headed says the caller wrote the section's heading.
func quantSection(w io.Writer, dir, run, title string, q quantFile, copyGBps float64, pf pathFloors, headed bool) error {
	floorUS, pathCopyGBps := pf.EmptyUS, pf.CopyGBps
	p := func(f string, a ...any) { fmt.Fprintf(w, f, a...) }
	if !headed {
		p("## %s\n\n", title)
	}
	p("Device %s, driver %s, %d cases. Each tile (thread: a lane per block, the baseline; lane: a lane per block, bytes\n", q.Device, q.Driver, len(q.Results))
	p("decided in fixed point, Q8_1 only; sg: a subgroup per block; multi: 4 subgroups, a block each; wg: 256 lanes, an\n")
	p("element each) is timed on inputs rotated over >= 512 MiB (CUDA; Vulkan rotates over at most 512 buffer copies).\n")
	p("GB/s counts input read + blocks written; `%% copy` = GB/s / copy GB/s.\n\n")
	byFamily := map[string][]quantResult{}
	var families []string
	for _, r := range q.Results {
		if byFamily[r.Family] == nil {
			families = append(families, r.Family)
		}
		byFamily[r.Family] = append(byFamily[r.Family], r)
	}
	pct := func(gbps float64) float64 {
		if copyGBps <= 0 {
			return 0
		}
		return 100 * gbps / copyGBps
	}
	// The targets (issues 6 and 12), for every family of the file.
	p("Against the targets (issues 6 and 12):\n\n")
	for _, f := range families {
		var one, big []string
		for _, r := range byFamily[f] {
			if r.Rows == 1 && r.K == 4096 {
				s := fmt.Sprintf("%s %.1fx (%s %.2f us, thread %.2f us", r.Dtype, r.Speedup, r.BestTile, r.BestUS, r.ThreadUS)
				if floorUS > 0 {
					s += fmt.Sprintf("; %.2fx the empty kernel", r.BestUS/floorUS)
				}
				if pf.RowUS > 0 && r.Dtype == "f32" {
					s += fmt.Sprintf("; %.2fx a kernel that only moves the row's bytes", r.BestUS/pf.RowUS)
				}
				one = append(one, s+")")
			}
			if r.Rows == 4096 {
				b := fmt.Sprintf("%s K=%d %.0f%%", r.Dtype, r.K, pct(r.BestGBps))
				if pathCopyGBps > 0 {
					b += fmt.Sprintf(" (%.0f%% of the path's copy)", 100*r.BestGBps/pathCopyGBps)
				}
				big = append(big, b)
			}
		}
		if floorUS > 0 {
			p("- %s at one row, K = 4096, at least 20x faster than the thread-per-block baseline and within 1.3x of an empty kernel (%.2f us): %s.\n", f, floorUS, orNone(one))
		} else {
			p("- %s at one row, K = 4096, at least 20x faster than the thread-per-block baseline: %s.\n", f, orNone(one))
		}
		p("- %s at 4096 rows, at least 80%% of copy bandwidth (best tile): %s.\n", f, orNone(big))
	}
	heur, known, n := 0, 0, 0
	for _, r := range q.Results {
		n++
		if h, ok := heuristicUS(r.Heuristic, r.HeuristicUS, r.Times); ok {
			known++
			if h <= 1.10*r.TunedUS {
				heur++
			}
		}
	}
	p("- Heuristic within 10%% of tuned: %d of %d cases.\n", heur, known)
	notEligible(w, q.NotEligible)
	p("\n")
	for _, f := range families {
		rs := byFamily[f]
		sort.SliceStable(rs, func(i, j int) bool {
			a, b := rs[i], rs[j]
			if a.Dtype != b.Dtype {
				return a.Dtype > b.Dtype // f32 before bf16
			}
			if a.K != b.K {
				return a.K < b.K
			}
			return a.Rows < b.Rows
		})
		p("### %s\n\n", f)
		chart := fmt.Sprintf("%s-quant-%s-%s.png", run, q.Backend, f)
		labels := make([]string, len(rs))
		best, thread := make(plotter.Values, len(rs)), make(plotter.Values, len(rs))
		var table strings.Builder
		table.WriteString("| rows | K | dtype | thread us | best tile | us | speedup over thread | GB/s | % copy | heuristic | tuned |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		for i, r := range rs {
			labels[i] = fmt.Sprintf("%s k%d r%d", r.Dtype, r.K, r.Rows)
			best[i] = pct(r.BestGBps)
			if r.ThreadUS > 0 {
				thread[i] = pct(float64(r.Bytes) / r.ThreadUS / 1e3)
			}
			fmt.Fprintf(&table, "| %d | %d | %s | %.2f | %s | %.2f | %.1fx | %.0f | %.0f%% | %s | %s |\n",
				r.Rows, r.K, r.Dtype, r.ThreadUS, r.BestTile, r.BestUS, r.Speedup, r.BestGBps, pct(r.BestGBps), r.Heuristic, r.Tuned)
		}
		if err := quantChart(filepath.Join(dir, chart), title+": "+f, labels, best, thread); err != nil {
			return err
		}
		p("![%s %s](bench/results/%s)\n\n", title, f, chart)
		io.WriteString(w, table.String())
		p("\n")
	}
	return nil
}

// pathFloors are one path's reference figures in a quantizer run: an empty
// kernel (CUDA) or shader (Vulkan) launched as gen bench launches, a kernel
// that only moves one row's bytes (K = 4096 f32 in, its 128 Q8_1 blocks
// out) launched the same way, and, on Vulkan, a copy shader's bandwidth
// (the torch copy is the run's copyGBps). Zero: not measured.
type pathFloors struct {
	EmptyUS, RowUS, CopyGBps float64
}

// runFloors are a quantizer run's reference figures: its copy bandwidth
// (RUN-copy.txt: "copy N GB/s", torch on CUDA); on CUDA from
// bench/empty-launch.cu (RUN-empty.txt) the least "N us per launch" (empty
// kernels) and "N us a launch" (the one-row move); on Vulkan from
// cmd/vktime the least empty-shader dispatch (RUN-vkempty.txt: "N us a
// dispatch"), the one-row move (RUN-vkrow.txt) and the best copy shader's
// bandwidth (RUN-vkcopy.txt: "N GB/s"). Any but the first is 0 when its
// file is missing.
type runFloors struct {
	CopyGBps     float64
	CUDA, Vulkan pathFloors
}

// extreme is the least (or, with most, the largest) number a pattern's
// first group matches in a run's file (0: no file or no match).
func extreme(dir, run, suffix, pattern string, most bool) float64 {
	b, err := readResult(filepath.Join(dir, run+suffix))
	if err != nil {
		return 0
	}
	out := 0.0
	for _, m := range regexp.MustCompile(pattern).FindAllSubmatch(b, -1) {
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		if out == 0 || (most && v > out) || (!most && v < out) {
			out = v
		}
	}
	return out
}

func quantRunFloors(dir, run string) (runFloors, error) {
	var f runFloors
	b, err := os.ReadFile(filepath.Join(dir, run+"-copy.txt"))
	if err != nil {
		return f, fmt.Errorf("-quant-run %s: %v (the copy bandwidth of that device call)", run, err)
	}
	m := regexp.MustCompile(`copy (\d+(?:\.\d+)?) GB/s`).FindSubmatch(b)
	if m == nil {
		return f, fmt.Errorf("-quant-run %s: no \"copy N GB/s\" in %s-copy.txt", run, run)
	}
	f.CopyGBps, _ = strconv.ParseFloat(string(m[1]), 64)
	f.CUDA.EmptyUS = extreme(dir, run, "-empty.txt", `(\d+(?:\.\d+)?) us per launch`, false)
	f.CUDA.RowUS = extreme(dir, run, "-empty.txt", `(\d+(?:\.\d+)?) us a launch`, false)
	f.Vulkan.EmptyUS = extreme(dir, run, "-vkempty.txt", `(\d+(?:\.\d+)?) us a dispatch`, false)
	f.Vulkan.RowUS = extreme(dir, run, "-vkrow.txt", `(\d+(?:\.\d+)?) us a dispatch`, false)
	f.Vulkan.CopyGBps = extreme(dir, run, "-vkcopy.txt", `(\d+(?:\.\d+)?) GB/s`, true)
	return f, nil
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "not measured"
	}
	return strings.Join(s, "; ")
}

// heuristicUS is the heuristic pick's time: from times when the result
// carries them, else the recorded heuristic_us.
func heuristicUS(name string, us float64, times map[string]float64) (float64, bool) {
	if len(times) > 0 {
		t, ok := times[name]
		return t, ok
	}
	return us, us > 0
}
