package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// statsReport prints, for each case of gen bench JSON files that carry
// pipeline_stats (Vulkan drivers that report them), every timed variant
// from fastest to slowest with its time and the driver's statistics, so a
// variant's time can be read beside its register count.
func statsReport(w io.Writer, files []string) error {
	for _, path := range files {
		b, err := readResult(path)
		if err != nil {
			return err
		}
		var doc struct {
			Device  string                        `json:"device"`
			Stats   map[string]map[string]float64 `json:"pipeline_stats"`
			Results []struct {
				Model, Layer, Family, Dtype string
				N, K, M                     int
				Rows                        int                `json:"rows"`
				QK                          int                `json:"k"`
				Times                       map[string]float64 `json:"times"`
			} `json:"results"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if len(doc.Stats) == 0 {
			return fmt.Errorf("%s: no pipeline_stats (a CUDA run, a driver that reports none, or a gen bench from before 2026-12-04)", path)
		}
		fmt.Fprintf(w, "%s (%s)\n", path, doc.Device)
		for _, r := range doc.Results {
			name := fmt.Sprintf("%s/%s m=%d n=%d k=%d", r.Model, r.Layer, r.M, r.N, r.K)
			if r.Model == "" { // a rows x k case (the quantizers)
				name = fmt.Sprintf("rows=%d k=%d %s", r.Rows, r.QK, r.Dtype)
			}
			fmt.Fprintf(w, "  %s\n", name)
			vs := make([]string, 0, len(r.Times))
			for v := range r.Times {
				vs = append(vs, v)
			}
			sort.Slice(vs, func(i, j int) bool { return r.Times[vs[i]] < r.Times[vs[j]] })
			for _, v := range vs {
				fmt.Fprintf(w, "    %-34s %9.2f us  %s\n", v, r.Times[v], statLine(doc.Stats[v]))
			}
		}
	}
	return nil
}

// statLine is a variant's statistics as "name=value" pairs, sorted by name.
func statLine(st map[string]float64) string {
	if len(st) == 0 {
		return "(no statistics)"
	}
	keys := make([]string, 0, len(st))
	for k := range st {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = strings.ReplaceAll(k, " ", "_") + "=" + strconv.FormatFloat(st[k], 'g', -1, 64)
	}
	return strings.Join(parts, " ")
}
