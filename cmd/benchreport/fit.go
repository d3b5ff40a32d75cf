package main

// The selection model's offline fitter and its out-of-sample scoring.
//
// An arch file may give model constants (templates/archs/*.yaml model:)
// that its prefer keys use by name: a predicted time in nanoseconds,
// lower wins (runtime.TimeKeys), or thresholds of shorter rules (sm90's
// mmvq keys). Select and kg_select evaluate those keys like any other.
// -fit fits the constants to a run's JSON (every candidate's time), and
// -eval scores the fitted keys leaving one model out at a time: fit on
// the other models, score the picks on the held-out one. Nothing here
// knows the model's formula: the constants are varied and the arch's keys
// re-evaluated through runtime.Env with the trial values.

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/expr"
	"github.com/kgen-dev/kgen/runtime/table"
)

// fitCand is one eligible candidate of a case that can still win whatever
// the constants (it ties the best on every key before the first model key).
type fitCand struct {
	name string
	us   float64 // measured time, 0 when not timed
	keys []int64 // all prefer keys (model keys re-evaluated per trial)
	// progs are the model keys (s.modelKeys' order) specialized to this
	// candidate's op, device and variant, the model constants free (in
	// s.consts order): a trial evaluates only what depends on them.
	progs []*expr.Prog
}

// fitCase is one measured op.
type fitCase struct {
	model, label string
	best         float64 // fastest measured time
	cands        []fitCand
}

// fitSet is one run's cases (one backend and arch) with the arch's keys.
type fitSet struct {
	key, arch string
	consts    []table.Const
	rules     []*expr.Expr
	modelKeys []int
	// timeProg is the position in modelKeys of the first predicted-time
	// key (runtime.TimeKeys), -1 when the model keys are all thresholds.
	timeProg int
	cases    []fitCase
}

// loadFitSets reads runs' JSON into fit sets, one per backend and arch;
// models filters the cases (nil: all).
func loadFitSets(paths []string, family string) ([]*fitSet, error) {
	sets := map[string]*fitSet{}
	var order []string
	files, devs, err := loadEvalFiles(paths, family)
	if err != nil {
		return nil, err
	}
	for i := range files {
		f, dev := files[i], devs[i]
		key := f.Backend + " (" + f.Arch + ")"
		s := sets[key]
		for _, r := range f.Results {
			if len(r.Times) == 0 {
				continue
			}
			fam := cmp.Or(r.Family, family)
			if s == nil {
				s = &fitSet{key: key, arch: f.Arch, consts: kruntime.ModelConsts(f.Arch)}
				rs, err := kruntime.PreferRules(f.Arch, fam)
				if err != nil {
					return nil, err
				}
				for _, r := range rs {
					e, err := expr.ParseTrusted(r.Expr)
					if err != nil {
						return nil, err
					}
					s.rules = append(s.rules, e)
				}
				s.modelKeys = kruntime.ModelKeys(f.Arch, fam)
				s.timeProg = -1
				if tk := kruntime.TimeKeys(f.Arch, fam); len(tk) > 0 {
					s.timeProg = slices.Index(s.modelKeys, tk[0])
				}
				sets[key] = s
				order = append(order, key)
			}
			op := kruntime.Op{Family: fam, Dtype: r.Dtype, M: r.M, N: r.N, K: r.K}
			ch, err := kruntime.SelectWith(dev, op, nil)
			if err != nil {
				return nil, fmt.Errorf("%s/%s %s: %w", r.Model, r.Layer, op, err)
			}
			c := fitCase{model: r.Model, label: fmt.Sprintf("%s/%s %s", r.Model, r.Layer, op)}
			for _, us := range r.Times {
				if c.best == 0 || us < c.best {
					c.best = us
				}
			}
			first := len(s.rules)
			if len(s.modelKeys) > 0 {
				first = s.modelKeys[0]
			}
			var elig []kruntime.Candidate
			for _, x := range ch.Candidates {
				if x.Excluded == "" {
					elig = append(elig, x)
				}
			}
			// Candidates is in preference order: the front is the
			// candidates tying the first on the keys before the first
			// model key.
			for _, x := range elig {
				if !equalKeys(x.Keys[:first], elig[0].Keys[:first]) {
					break
				}
				env := kruntime.Env(op, dev, x.Variant)
				fc := fitCand{name: x.Variant.Name, us: r.Times[x.Variant.Name], keys: append([]int64(nil), x.Keys...)}
				for _, ki := range s.modelKeys {
					fc.progs = append(fc.progs, s.rules[ki].Specialize(env, s.constNames()))
				}
				c.cands = append(c.cands, fc)
			}
			s.cases = append(s.cases, c)
		}
	}
	var out []*fitSet
	for _, k := range order {
		out = append(out, sets[k])
	}
	return out, nil
}

// constNames are the model constants' names, in s.consts order.
func (s *fitSet) constNames() []string {
	var out []string
	for _, c := range s.consts {
		out = append(out, c.Name)
	}
	return out
}

func equalKeys(a, b []int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// pick returns the candidate the keys choose under the constants vals
// (in s.consts order).
func (s *fitSet) pick(c *fitCase, vals []int64) *fitCand {
	var best *fitCand
	var bestKeys []int64
	keys := make([]int64, len(s.rules))
	for i := range c.cands {
		x := &c.cands[i]
		copy(keys, x.keys)
		ok := true
		for j, ki := range s.modelKeys {
			v, err := x.progs[j].Eval(vals)
			if err != nil {
				ok = false
				break
			}
			keys[ki] = v.Int
		}
		if !ok {
			continue
		}
		if best == nil || less(keys, bestKeys, x.name, best.name) {
			best, bestKeys = x, append(bestKeys[:0], keys...)
		}
	}
	return best
}

// predicted is a candidate's first predicted-time key under vals (ns),
// or -1 when there is none.
func (s *fitSet) predicted(x *fitCand, vals []int64) int64 {
	if s.timeProg < 0 {
		return -1
	}
	v, err := x.progs[s.timeProg].Eval(vals)
	if err != nil {
		return -1
	}
	return v.Int
}

// predictedNote is " (predicted N.N)" in us, or "" without a time key.
func (s *fitSet) predictedNote(x *fitCand, vals []int64) string {
	if s.timeProg < 0 {
		return ""
	}
	return fmt.Sprintf(" (predicted %.1f)", float64(s.predicted(x, vals))/1000)
}

func less(a, b []int64, an, bn string) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return an < bn
}

// score is how the picks under vals do on the cases.
type score struct {
	within, n, unmeasured int
	worst, logSum         float64
	slow                  []string
	cases                 []caseScore // every timed pick, when detail
}

// caseScore is one case's pick against its fastest measured candidate,
// with the model's predicted times of both.
type caseScore struct {
	ratio float64
	line  string
}

// worstLines returns the n worst cases' lines, slowest first.
func worstLines(cs []caseScore, n int) []string {
	cs = append([]caseScore(nil), cs...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].ratio > cs[j].ratio })
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].line)
	}
	return out
}

func (s *fitSet) score(cases []*fitCase, vals []int64, detail bool) score {
	sc := score{worst: 1}
	for _, c := range cases {
		sc.n++
		x := s.pick(c, vals)
		if x == nil || x.us == 0 {
			sc.unmeasured++
			sc.logSum += math.Log(2)
			if detail {
				name := "nothing"
				if x != nil {
					name = x.name
				}
				sc.slow = append(sc.slow, fmt.Sprintf("%s: picks %s, not timed", c.label, name))
			}
			continue
		}
		r := x.us / c.best
		sc.worst = max(sc.worst, r)
		sc.logSum += math.Log(r)
		if r <= 1.10 {
			sc.within++
		} else if detail {
			sc.slow = append(sc.slow, fmt.Sprintf("%s: picks %s %.1f us, fastest %.1f us (x%.2f)", c.label, x.name, x.us, c.best, r))
		}
		if detail {
			f := x
			for i := range c.cands {
				if y := &c.cands[i]; y.us > 0 && y.us < f.us {
					f = y
				}
			}
			line := fmt.Sprintf("x%.3f %s: picks %s %.1f us%s, fastest %s %.1f us%s",
				r, c.label, x.name, x.us, s.predictedNote(x, vals), f.name, f.us, s.predictedNote(f, vals))
			sc.cases = append(sc.cases, caseScore{r, line})
		}
	}
	return sc
}

// objective is lower-better: misses, then the mean log slowdown, then
// slowdowns past 1.25x.
func (s *fitSet) objective(cases []*fitCase, vals []int64) float64 {
	var o float64
	for _, c := range cases {
		x := s.pick(c, vals)
		r := 2.0
		if x != nil && x.us > 0 {
			r = x.us / c.best
		}
		if r > 1.10 {
			o++
		}
		o += 3*math.Log(r) + 10*max(0, r-1.25)
	}
	return o
}

// regW weighs the picks' fit against staying near the start: each
// constant adds regW x (its log distance from the start)^2, so the
// descent on the picks (which sees only the training cases' candidates)
// does not move constants the cases barely constrain to values that rank
// other shapes wrongly. 10 was the best of 0, 2 and 10 leaving one model
// out on run h200-2026-12-02s (CUDA: 0 gave 1.39x worst, 10 1.32x).
const regW = 10

// regression is the squared log error of the predicted times (the first
// time key, in ns) against the measured ones, over candidates within 2x
// of their case's fastest.
func (s *fitSet) regression(cases []*fitCase, vals []int64) float64 {
	var e float64
	for _, d := range s.residuals(cases, vals, nil) {
		e += d * d
	}
	return e
}

// residuals are the log errors regression sums, in a fixed order.
func (s *fitSet) residuals(cases []*fitCase, vals []int64, out []float64) []float64 {
	out = out[:0]
	for _, c := range cases {
		for i := range c.cands {
			x := &c.cands[i]
			if x.us == 0 || x.us > 2*c.best {
				continue
			}
			p := s.predicted(x, vals)
			if p < 1 {
				p = 1
			}
			out = append(out, math.Log(float64(p)/(x.us*1000)))
		}
	}
	return out
}

// fit fits the constants from several starts and keeps the one whose
// picks score best on the cases it fits (the objective; never the
// held-out ones): init itself, and Levenberg-Marquardt's least squares of
// the regression error from init and from fitJitters points around it
// (coordinate descent alone can stall in a valley of the launch and
// bandwidth constants). From each start: coordinate descent on the
// regression error, then on the picks (the objective plus regW's pull
// toward init).
func (s *fitSet) fit(cases []*fitCase, init []int64) []int64 {
	pick := func(v []int64) float64 {
		o := s.objective(cases, v)
		for i := range v {
			d := math.Log(float64(max(v[i], 1)) / float64(max(init[i], 1)))
			o += regW * d * d
		}
		return o
	}
	if s.timeProg < 0 {
		// Thresholds only: no predicted times to regress.
		return descend(append([]int64(nil), init...), 3, pick)
	}
	reg := func(v []int64) float64 { return s.regression(cases, v) }
	best := descend(descend(append([]int64(nil), init...), 4, reg), 3, pick)
	bestO := pick(best)
	for i := 0; i <= fitJitters; i++ {
		start := init
		if i > 0 {
			start = jitter(init, i)
		}
		c := descend(descend(s.levenberg(cases, start, 25), 2, reg), 3, pick)
		if o := pick(c); o < bestO {
			best, bestO = c, o
		}
	}
	return best
}

// fitJitters is how many more Levenberg-Marquardt starts fit tries
// (-fit-starts), each the init constants scaled by factors in [1/2, 2]
// (seeded: a fit is reproducible). One start can stall in a basin whose
// picks score worse even on the cases fitted (run h100-2026-12-06z with
// the overlap term: from run 06u's constants, 313 of 320 training cases
// within 10%; from round-number constants, 319). Each start costs about
// one more Levenberg-Marquardt pass: a CUDA -eval of ten models takes
// several times as long as with none.
var fitJitters = 6

func jitter(init []int64, i int) []int64 {
	r := rand.New(rand.NewPCG(uint64(i), 0x6b67656e))
	out := make([]int64, len(init))
	for j, v := range init {
		out[j] = max(1, int64(math.Round(float64(v)*math.Exp2(2*r.Float64()-1))))
	}
	return out
}

// levenberg minimizes the regression error over the logarithms of the
// constants (each kept >= 1; finite differences of 5%, as the constants
// are integers), at most iters steps.
func (s *fitSet) levenberg(cases []*fitCase, init []int64, iters int) []int64 {
	n := len(init)
	th := make([]float64, n)
	for i, v := range init {
		th[i] = math.Log(float64(max(v, 1)))
	}
	ints := func(th []float64) []int64 {
		v := make([]int64, n)
		for i := range th {
			v[i] = max(1, min(int64(math.Round(math.Exp(th[i]))), 1<<40))
		}
		return v
	}
	r := s.residuals(cases, ints(th), nil)
	cost := sumSq(r)
	lambda := 1e-2
	const h = 0.05
	J := make([][]float64, n)
	for it := 0; it < iters; it++ {
		for j := 0; j < n; j++ {
			t := append([]float64(nil), th...)
			t[j] += h
			rj := s.residuals(cases, ints(t), nil)
			J[j] = make([]float64, len(r))
			for i := range r {
				J[j][i] = (rj[i] - r[i]) / h
			}
		}
		A := make([][]float64, n)
		g := make([]float64, n)
		for a := range A {
			A[a] = make([]float64, n)
			for b := range A[a] {
				for i := range r {
					A[a][b] += J[a][i] * J[b][i]
				}
			}
			for i := range r {
				g[a] += J[a][i] * r[i]
			}
		}
		improved := false
		for try := 0; try < 8 && !improved; try++ {
			M := make([][]float64, n)
			for a := range M {
				M[a] = append([]float64(nil), A[a]...)
				M[a][a] += lambda * (A[a][a] + 1e-9)
			}
			d := solveLinear(M, g)
			t := make([]float64, n)
			for j := range th {
				t[j] = th[j] - max(-2, min(2, d[j]))
			}
			if r2 := s.residuals(cases, ints(t), nil); sumSq(r2) < cost {
				th, r, cost = t, r2, sumSq(r2)
				lambda = max(lambda/3, 1e-7)
				improved = true
			} else {
				lambda *= 4
			}
		}
		if !improved {
			break
		}
	}
	return ints(th)
}

func sumSq(r []float64) float64 {
	var s float64
	for _, x := range r {
		s += x * x
	}
	return s
}

// solveLinear solves A x = b by Gauss-Jordan elimination with partial
// pivoting (a singular column gives 0).
func solveLinear(A [][]float64, b []float64) []float64 {
	n := len(b)
	M := make([][]float64, n)
	for i := range A {
		M[i] = append(append([]float64(nil), A[i]...), b[i])
	}
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(M[r][c]) > math.Abs(M[p][c]) {
				p = r
			}
		}
		M[c], M[p] = M[p], M[c]
		if math.Abs(M[c][c]) < 1e-300 {
			continue
		}
		for r := 0; r < n; r++ {
			if r != c {
				f := M[r][c] / M[c][c]
				for k := c; k <= n; k++ {
					M[r][k] -= f * M[c][k]
				}
			}
		}
	}
	x := make([]float64, n)
	for i := range x {
		if M[i][i] != 0 {
			x[i] = M[i][n] / M[i][i]
		}
	}
	return x
}

// descend is multiplicative coordinate descent on integer constants >= 0.
func descend(vals []int64, rounds int, f func([]int64) float64) []int64 {
	best := f(vals)
	for r := 0; r < rounds; r++ {
		improved := false
		for _, step := range []float64{2, 1.41, 1.19, 1.09} {
			for i := range vals {
				for _, mul := range []float64{step, 1 / step} {
					v := vals[i]
					nv := int64(math.Round(float64(v) * mul))
					if nv == v {
						nv = v + 1
						if mul < 1 {
							nv = v - 1
						}
					}
					if nv < 0 || nv > 1<<40 {
						continue
					}
					vals[i] = nv
					if o := f(vals); o < best {
						best, improved = o, true
					} else {
						vals[i] = v
					}
				}
			}
		}
		if !improved {
			break
		}
	}
	return vals
}

// initVals is the committed constants with -init's name=value overrides.
func (s *fitSet) initVals(init string) ([]int64, error) {
	vals := make([]int64, len(s.consts))
	for i, c := range s.consts {
		vals[i] = c.Value
	}
	if init == "" {
		return vals, nil
	}
	for _, kv := range strings.Split(init, ",") {
		name, v, ok := strings.Cut(kv, "=")
		x, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("-init %q: want name=integer,...", kv)
		}
		found := false
		for i, c := range s.consts {
			if c.Name == name {
				vals[i], found = x, true
			}
		}
		if !found && len(s.consts) > 0 {
			return nil, fmt.Errorf("-init: %s has no model constant %q", s.arch, name)
		}
	}
	return vals, nil
}

func (s *fitSet) all(skip map[string]bool) []*fitCase {
	var out []*fitCase
	for i := range s.cases {
		if !skip[s.cases[i].model] {
			out = append(out, &s.cases[i])
		}
	}
	return out
}

func (s *fitSet) models() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range s.cases {
		if !seen[c.model] {
			seen[c.model] = true
			out = append(out, c.model)
		}
	}
	sort.Strings(out)
	return out
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// fitReport fits each set's model constants on all its cases and prints
// them as arch-file lines, with the in-sample score.
func fitReport(w io.Writer, sets []*fitSet, init string) error {
	for _, s := range sets {
		if len(s.modelKeys) == 0 {
			fmt.Fprintf(w, "%s: no prefer key uses model constants (templates/archs/%s.yaml model:); nothing to fit\n", s.key, s.arch)
			continue
		}
		iv, err := s.initVals(init)
		if err != nil {
			return err
		}
		vals := s.fit(s.all(nil), iv)
		sc := s.score(s.all(nil), vals, false)
		fmt.Fprintf(w, "%s: fitted on all %d cases of %d models; in-sample within 10%% in %d of %d (%.1f%%), worst x%.3f, %d picks not timed\n",
			s.key, sc.n, len(s.models()), sc.within, sc.n, pct(sc.within, sc.n), sc.worst, sc.unmeasured)
		fmt.Fprintf(w, "model:\n")
		for i, c := range s.consts {
			fmt.Fprintf(w, "  %s: %d\n", c.Name, vals[i])
		}
	}
	return nil
}

// looReport scores the arch's model keys leaving one model out at a time:
// for each model, fit on the others (from the committed constants, or
// -init), score the held-out model's cases. Also prints the committed
// constants' in-sample score for comparison.
func looReport(w io.Writer, sets []*fitSet, init string, detail bool) error {
	for _, s := range sets {
		if len(s.modelKeys) == 0 {
			continue
		}
		iv, err := s.initVals(init)
		if err != nil {
			return err
		}
		committed := make([]int64, len(s.consts))
		for i, c := range s.consts {
			committed[i] = c.Value
		}
		in := s.score(s.all(nil), committed, false)
		fmt.Fprintf(w, "%s: committed model constants, in-sample: within 10%% in %d of %d (%.1f%%), worst x%.3f, %d picks not timed\n",
			s.key, in.within, in.n, pct(in.within, in.n), in.worst, in.unmeasured)
		var tot score
		tot.worst = 1
		var lines, slow []string
		var cases []caseScore
		models := s.models()
		scores := make([]score, len(models))
		var wg sync.WaitGroup
		sem := make(chan bool, runtime.GOMAXPROCS(0))
		for i, m := range models {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- true
				defer func() { <-sem }()
				train := s.all(map[string]bool{m: true})
				var test []*fitCase
				for _, c := range s.all(nil) {
					if c.model == m {
						test = append(test, c)
					}
				}
				scores[i] = s.score(test, s.fit(train, iv), true)
			}()
		}
		wg.Wait()
		for i, m := range models {
			sc := scores[i]
			tot.within += sc.within
			tot.n += sc.n
			tot.unmeasured += sc.unmeasured
			tot.worst = max(tot.worst, sc.worst)
			lines = append(lines, fmt.Sprintf("  %-18s within 10%% in %3d of %3d, worst x%.3f", m, sc.within, sc.n, sc.worst))
			slow = append(slow, sc.slow...)
			cases = append(cases, sc.cases...)
		}
		fmt.Fprintf(w, "%s: leave-one-model-out (%d models): within 10%% in %d of %d (%.1f%%), worst x%.3f, %d picks not timed\n",
			s.key, len(lines), tot.within, tot.n, pct(tot.within, tot.n), tot.worst, tot.unmeasured)
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
		fmt.Fprintf(w, "%s: leave-one-model-out, the worst 5 held-out picks (predicted: the model fitted without that case's model):\n", s.key)
		for _, l := range worstLines(cases, 5) {
			fmt.Fprintln(w, "    worst  "+l)
		}
		if detail {
			for _, l := range slow {
				fmt.Fprintln(w, "    slower  "+l)
			}
		}
	}
	return nil
}
