package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// abSide is one build's passes: per case, per variant, the fastest of the
// passes' times, and each pass's fastest time per case (its tuned time).
type abSide struct {
	best   map[string]map[string]float64
	passes []map[string]float64
}

func loadABSide(paths []string) (abSide, error) {
	s := abSide{best: map[string]map[string]float64{}}
	for _, p := range paths {
		var f evalFile // the -eval reader's view of a gen bench file: cases and their times
		if !read(p, &f) {
			return s, fmt.Errorf("%s: not a readable gen bench JSON", p)
		}
		pass := map[string]float64{}
		for _, r := range f.Results {
			c := fmt.Sprintf("%s %s %s m=%d", r.Dtype, r.Model, r.Layer, r.M)
			if s.best[c] == nil {
				s.best[c] = map[string]float64{}
			}
			for v, us := range r.Times {
				if old, ok := s.best[c][v]; !ok || us < old {
					s.best[c][v] = us
				}
				if old, ok := pass[c]; !ok || us < old {
					pass[c] = us
				}
			}
		}
		s.passes = append(s.passes, pass)
	}
	return s, nil
}

// abReport compares two builds timed in one device call (each side one or
// more passes of the same suite, e.g. alternated a b b a): per case the
// fastest variant of each side (the tuned time) and their ratio; per tile
// (the name's rows, tokens and tile) the ratio of each variant's own
// time over the cases both timed; and, where a side has two passes or more,
// the spread between its passes' tuned times (the noise a ratio must beat).
func abReport(w io.Writer, aPaths, bPaths []string) error {
	a, err := loadABSide(aPaths)
	if err != nil {
		return err
	}
	b, err := loadABSide(bPaths)
	if err != nil {
		return err
	}
	var cases []string
	for c := range a.best {
		if b.best[c] != nil {
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		return fmt.Errorf("-ab: the two sides share no case")
	}
	sort.Strings(cases)
	fastest := func(m map[string]float64) (string, float64) {
		var name string
		var us float64
		for v, t := range m {
			if name == "" || t < us || t == us && v < name {
				name, us = v, t
			}
		}
		return name, us
	}
	tile := func(v string) string { // mmvq_q4_k_r16_t8_mms128 -> r16_t8_mms128
		parts := strings.Split(v, "_")
		if len(parts) < 3 {
			return v
		}
		return strings.Join(parts[len(parts)-3:], "_")
	}
	fmt.Fprintf(w, "A/B: A = %s, B = %s; per case the fastest variant of each side (fastest of its passes), A/B > 1: B faster\n\n", strings.Join(aPaths, ","), strings.Join(bPaths, ","))
	fmt.Fprintf(w, "| case | A us (variant) | B us (variant) | A/B |\n|---|---|---|---|\n")
	var ratios []float64
	perTile := map[string][]float64{}
	for _, c := range cases {
		av, at := fastest(a.best[c])
		bv, bt := fastest(b.best[c])
		ratios = append(ratios, at/bt)
		fmt.Fprintf(w, "| %s | %.1f (%s) | %.1f (%s) | %.3f |\n", c, at, tile(av), bt, tile(bv), at/bt)
		for v, t := range b.best[c] {
			if ta, ok := a.best[c][v]; ok {
				perTile[tile(v)] = append(perTile[tile(v)], ta/t)
			}
		}
	}
	fmt.Fprintf(w, "\ntuned A/B over %d cases: %s; B faster by more than 2%% in %d, slower by more than 2%% in %d\n", len(ratios), ratioSpan(ratios), count(ratios, func(r float64) bool { return r > 1.02 }), count(ratios, func(r float64) bool { return r < 0.98 }))
	for _, s := range []struct {
		name string
		side abSide
	}{{"A", a}, {"B", b}} {
		if len(s.side.passes) < 2 {
			continue
		}
		var spread []float64
		for _, c := range cases {
			lo, hi := 0.0, 0.0
			for _, p := range s.side.passes {
				if t, ok := p[c]; ok {
					if lo == 0 || t < lo {
						lo = t
					}
					if t > hi {
						hi = t
					}
				}
			}
			if lo > 0 {
				spread = append(spread, hi/lo)
			}
		}
		fmt.Fprintf(w, "%s's passes, slowest / fastest tuned time per case: %s\n", s.name, ratioSpan(spread))
	}
	var tiles []string
	for t := range perTile {
		tiles = append(tiles, t)
	}
	sort.Strings(tiles)
	fmt.Fprintf(w, "\n| tile | cases | A/B median | min | max |\n|---|---|---|---|---|\n")
	for _, t := range tiles {
		r := perTile[t]
		sort.Float64s(r)
		fmt.Fprintf(w, "| %s | %d | %.3f | %.3f | %.3f |\n", t, len(r), r[len(r)/2], r[0], r[len(r)-1])
	}
	return nil
}

// ratioSpan is "median M (min-max)" of ratios.
func ratioSpan(r []float64) string {
	if len(r) == 0 {
		return "no cases"
	}
	s := append([]float64(nil), r...)
	sort.Float64s(s)
	return fmt.Sprintf("median %.3f (%.3f-%.3f)", s[len(s)/2], s[0], s[len(s)-1])
}

func count(r []float64, f func(float64) bool) int {
	n := 0
	for _, x := range r {
		if f(x) {
			n++
		}
	}
	return n
}

// runAB is -ab's entry: the two sides' comma-separated file lists.
func runAB(a, b string) {
	if err := abReport(os.Stdout, strings.Split(a, ","), strings.Split(b, ",")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
