package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	kruntime "github.com/kgen-dev/kgen/runtime"
)

// evalFile is the part of a model-suite `gen bench` output -eval reads.
type evalFile struct {
	Backend, Arch string
	Results       []struct {
		Family              string // "" in files from before it was recorded
		Model, Layer, Dtype string
		N, K, M             int
		TunedUS             float64            `json:"tuned_us"`
		Times               map[string]float64 `json:"times"`
	}
}

// evaluate re-runs runtime.Select with the current generated table for
// every case of the files (of family, when a result does not name its
// family) and reports, per backend, how many picks are
// within 10% of the case's fastest measured time (the pick's time looked up
// in the case's times; a pick that was not timed is unknown and listed).
// Cases without times are counted as skipped.
func evaluate(w io.Writer, paths []string, family string) error {
	return evaluateSkip(w, paths, family, nil)
}

// evalTally is how the current heuristic's picks do on one group of
// cases.
type evalTally struct {
	within, slower, skipped int
	worst                   float64
	unknown, slow           []string
	cases                   []caseScore
}

// byBackend groups -eval's tallies per backend and arch ("cuda (sm90)").
func byBackend(f *evalFile, dtype string) string { return f.Backend + " (" + f.Arch + ")" }

// tallyEval re-runs runtime.Select on every case of the files, leaving out
// the cases of the models in skip, and tallies the picks per group (the
// key group returns for a case's file and weight format); it returns the
// keys in order and the tallies.
func tallyEval(paths []string, family string, skip map[string]bool, group func(f *evalFile, dtype string) string) ([]string, map[string]*evalTally, error) {
	tallies := map[string]*evalTally{}
	var keys []string
	files, devs, err := loadEvalFiles(paths, family)
	if err != nil {
		return nil, nil, err
	}
	for i := range files {
		f, dev := files[i], devs[i]
		for _, r := range f.Results {
			if skip[r.Model] {
				continue
			}
			key := group(&f, r.Dtype)
			t := tallies[key]
			if t == nil {
				t = &evalTally{}
				tallies[key] = t
				keys = append(keys, key)
			}
			if len(r.Times) == 0 {
				t.skipped++
				continue
			}
			best := r.TunedUS
			for _, us := range r.Times {
				if best <= 0 || us < best {
					best = us
				}
			}
			op := kruntime.Op{Family: cmp.Or(r.Family, family), Dtype: r.Dtype, M: r.M, N: r.N, K: r.K}
			label := fmt.Sprintf("%s/%s %s", r.Model, r.Layer, op)
			ch, err := kruntime.SelectWith(dev, op, nil)
			if err != nil {
				t.unknown = append(t.unknown, fmt.Sprintf("%s: %v", label, err))
				continue
			}
			us, ok := r.Times[ch.Heuristic.Name]
			if ok {
				t.worst = max(t.worst, us/best)
				fastest := ""
				for name, x := range r.Times {
					if x == best && (fastest == "" || name < fastest) {
						fastest = name
					}
				}
				t.cases = append(t.cases, caseScore{us / best, fmt.Sprintf("x%.3f %s: picks %s %.1f us, fastest %s %.1f us", us/best, label, ch.Heuristic.Name, us, fastest, best)})
			}
			switch {
			case !ok:
				t.unknown = append(t.unknown, fmt.Sprintf("%s: picks %s, not timed", label, ch.Heuristic.Name))
			case us <= 1.10*best:
				t.within++
			default:
				t.slower++
				t.slow = append(t.slow, fmt.Sprintf("%s: picks %s %.1f us, fastest %.1f us (+%.0f%%)", label, ch.Heuristic.Name, us, best, 100*(us/best-1)))
			}
		}
	}
	sort.Strings(keys)
	return keys, tallies, nil
}

// evaluateSkip is evaluate leaving out the cases of the models in skip.
func evaluateSkip(w io.Writer, paths []string, family string, skip map[string]bool) error {
	keys, tallies, err := tallyEval(paths, family, skip, byBackend)
	if err != nil {
		return err
	}
	for _, k := range keys {
		t := tallies[k]
		known := t.within + t.slower
		fmt.Fprintf(w, "%s: current heuristic within 10%% of tuned in %d of %d cases", k, t.within, known)
		if len(skip) > 0 {
			var ms []string
			for m := range skip {
				ms = append(ms, m)
			}
			sort.Strings(ms)
			fmt.Fprintf(w, " (without %s)", strings.Join(ms, ", "))
		}
		if known > 0 {
			fmt.Fprintf(w, " (%.0f%%)", 100*float64(t.within)/float64(known))
		}
		fmt.Fprintf(w, "; worst x%.3f; %d unknown, %d without times\n", t.worst, len(t.unknown), t.skipped)
		fmt.Fprintf(w, "  the worst 5:\n")
		for _, l := range worstLines(t.cases, 5) {
			fmt.Fprintln(w, "    worst  "+l)
		}
		for _, s := range t.slow {
			fmt.Fprintln(w, "  slower  "+s)
		}
		for _, s := range t.unknown {
			fmt.Fprintln(w, "  unknown "+s)
		}
	}
	return nil
}

// loadEvalFiles reads gen bench JSON files (loadEval) and drops every case
// that a later file times again (same backend, arch, model, layer, family,
// weight format and shape): a re-timed case supersedes the earlier timing
// (run 06m re-timed the suite cases first timed on freshly built Vulkan
// pipelines). How many were dropped goes to stderr.
func loadEvalFiles(paths []string, family string) ([]evalFile, []kruntime.Device, error) {
	files := make([]evalFile, len(paths))
	devs := make([]kruntime.Device, len(paths))
	for i, path := range paths {
		var err error
		if files[i], devs[i], err = loadEval(path); err != nil {
			return nil, nil, err
		}
	}
	seen := map[string]bool{}
	dropped := 0
	for i := len(files) - 1; i >= 0; i-- { // the last timing of a case wins
		f := &files[i]
		keep := make([]bool, len(f.Results))
		for j := len(f.Results) - 1; j >= 0; j-- {
			r := f.Results[j]
			key := fmt.Sprintf("%s %s %s/%s %s %s %d %d %d", f.Backend, f.Arch, r.Model, r.Layer, cmp.Or(r.Family, family), r.Dtype, r.M, r.N, r.K)
			keep[j] = !seen[key]
			seen[key] = true
		}
		kept := f.Results[:0]
		for j, r := range f.Results {
			if keep[j] {
				kept = append(kept, r)
			} else {
				dropped++
			}
		}
		f.Results = kept
	}
	if dropped > 0 {
		fmt.Fprintf(os.Stderr, "benchreport: %d cases superseded by a later file's timing of the same case\n", dropped)
	}
	return files, devs, nil
}

// loadEval reads a gen bench JSON file and the device of its arch.
func loadEval(path string) (evalFile, kruntime.Device, error) {
	var f evalFile
	b, err := readResult(path)
	if err != nil {
		return f, kruntime.Device{}, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, kruntime.Device{}, fmt.Errorf("%s: %w", path, err)
	}
	dev, err := kruntime.ArchDevice(f.Arch)
	if err != nil {
		return f, kruntime.Device{}, fmt.Errorf("%s: %w", path, err)
	}
	return f, dev, nil
}
