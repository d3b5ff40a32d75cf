package bench

import (
	"errors"
	"fmt"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/expr"
	"github.com/kgen-dev/kgen/runtime/table"
)

// Measurement is one op timed on one device: what every record (Result,
// QuantResult) is computed from.
type Measurement struct {
	Op kruntime.Op
	// Buffers are the heuristic pick's planned buffers (what the op reads
	// and writes).
	Buffers     []kruntime.PlannedBuffer
	Heuristic   string
	HeuristicUS float64
	Tuned       string
	TunedUS     float64
	// Times is every timed variant's median in us by name: the heuristic
	// pick, the candidates runtime.Tune swept and the baseline.
	Times map[string]float64
	// Variants are the timed variants, by name.
	Variants map[string]*table.Variant
	// Baseline is the family's baseline variant for the op (the spec's bench.baseline),
	// nil when it has none eligible.
	Baseline *table.Variant
	// RotatedBytes is what a timed pass touched (0: the timer does not say).
	RotatedBytes int64
	// Dispatches is the dispatches of one variant a timed pass held when
	// the timer repeats the op on the same buffers (VulkanTimer under
	// TimingGGML); 0 otherwise.
	Dispatches  int
	TuneSeconds float64
	// Forced is the KGEN_FORCE value that narrowed the candidates ("":
	// none did).
	Forced string
}

// Measure times op on dev through runtime.Tune (the heuristic pick and the
// candidates it sweeps; the tuned pick is recorded in cache when not nil),
// then the family's baseline if Tune did not time it. An op outside the
// family or with no eligible variant fails with runtime's
// *NotEligibleError or *NoVariantError (see NotEligible).
func Measure(t kruntime.Timer, dev kruntime.Device, op kruntime.Op, cache *kruntime.TuneCache) (*Measurement, error) {
	return MeasureRounds(t, dev, op, cache, kruntime.DefaultTuneRounds)
}

// MeasureRounds is Measure with the candidates timed in rounds rounds
// (runtime.TuneRounds: every other round in reverse order, each variant's
// fastest round kept).
func MeasureRounds(t kruntime.Timer, dev kruntime.Device, op kruntime.Op, cache *kruntime.TuneCache, rounds int) (*Measurement, error) {
	trs, err := kruntime.TuneRounds(t, dev, []kruntime.Op{op}, cache, rounds)
	if err != nil {
		return nil, err
	}
	tr := trs[0]
	m := &Measurement{Op: op, Heuristic: tr.Entry.Heuristic, HeuristicUS: tr.Entry.HeurUS, Tuned: tr.Entry.Variant, TunedUS: tr.Entry.US,
		Times: map[string]float64{}, Variants: map[string]*table.Variant{}, Forced: tr.Forced}
	for k, v := range tr.Times {
		m.Times[k] = v
	}
	ch, err := kruntime.SelectWith(dev, op, nil)
	if err != nil {
		return nil, err
	}
	// The family's baseline (kernels.yaml, bench.baseline), if it has one.
	fam, err := kruntime.Contract(op.Family)
	if err != nil {
		return nil, err
	}
	var base *expr.Expr
	if fam.Baseline != "" {
		if base, err = expr.ParseTrusted(fam.Baseline); err != nil {
			return nil, err
		}
	}
	for _, c := range ch.Candidates {
		v := c.Variant
		if c.Excluded != "" {
			continue
		}
		if _, ok := m.Times[v.Name]; ok {
			m.Variants[v.Name] = v
		}
		if base == nil {
			continue
		}
		if ok, err := base.Bool(kruntime.Env(op, dev, v)); m.Baseline != nil || err != nil || !ok {
			continue // a family without the baseline's parameters has none
		}
		m.Baseline, m.Variants[v.Name] = v, v
		if _, ok := m.Times[v.Name]; !ok {
			us, err := t.Time(v, op)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", op, v.Name, err)
			}
			m.Times[v.Name] = us
		}
	}
	l, err := kruntime.Plan(tr.Heuristic, dev, op)
	if err != nil {
		return nil, err
	}
	m.Buffers = l.Buffers
	if r, ok := t.(interface{ Rotated(kruntime.Op) int64 }); ok {
		m.RotatedBytes = r.Rotated(op)
	}
	if r, ok := t.(interface{ Dispatches(kruntime.Op) int }); ok {
		m.Dispatches = r.Dispatches(op)
	}
	m.TuneSeconds = tr.Elapsed.Seconds()
	return m, nil
}

// NotEligible returns why an error of Measure says the op is not served
// (outside the family's rules, or no variant eligible), as a line starting
// "not eligible: ": the case is reported and skipped, not a failure.
func NotEligible(err error) (string, bool) {
	var ne *kruntime.NotEligibleError
	var nv *kruntime.NoVariantError
	switch {
	case errors.As(err, &ne):
		return ne.Error(), true
	case errors.As(err, &nv):
		return "not eligible: " + nv.Error(), true
	}
	return "", false
}

// bytes sums the planned sizes of the buffers satisfying keep.
func (m *Measurement) bytes(keep func(b kruntime.PlannedBuffer) bool) int64 {
	var n int64
	for _, b := range m.Buffers {
		if keep(b) {
			n += int64(b.Size)
		}
	}
	return n
}

// InputBytes are the bytes the op reads (its in buffers).
func (m *Measurement) InputBytes() int64 {
	return m.bytes(func(b kruntime.PlannedBuffer) bool { return b.Dir == "in" })
}

// OutputBytes are the bytes the op writes for the caller (its out buffers).
func (m *Measurement) OutputBytes() int64 {
	return m.bytes(func(b kruntime.PlannedBuffer) bool { return b.Dir == "out" })
}

// WeightBytes are the bytes of its buffers of weight elements.
func (m *Measurement) WeightBytes() int64 {
	return m.bytes(func(b kruntime.PlannedBuffer) bool { return b.Elem == "weight" })
}

// GBps is the op's bytes (read + written) over us, in GB/s (0 for no time).
func (m *Measurement) GBps(us float64) float64 {
	if us <= 0 {
		return 0
	}
	return float64(m.InputBytes()+m.OutputBytes()) / us / 1e3
}

// Runnable is one case of a suite: its op, and the record a measurement of
// it makes.
type Runnable interface {
	Op() kruntime.Op
	Record(m *Measurement) Record
}

// Record is a case's result in the bench JSON.
type Record interface {
	// Line is the result as one line of text.
	Line() string
}

// Skipped is a case that was not timed, in the bench JSON.
type Skipped struct {
	Op     string `json:"op"`
	Case   any    `json:"case"`
	Reason string `json:"reason"`
}

// Result is one timed case of a model suite.
type Result struct {
	Case
	WeightBytes   int64   `json:"weight_bytes"`
	Bytes         int64   `json:"bytes"` // read (weights, x, scales) + written (y)
	Heuristic     string  `json:"heuristic"`
	HeuristicUS   float64 `json:"heuristic_us"`
	Tuned         string  `json:"tuned"`
	TunedUS       float64 `json:"tuned_us"`
	Candidates    int     `json:"candidates"`
	TunedGBps     float64 `json:"tuned_gbps"`
	HeuristicGBps float64 `json:"heuristic_gbps"`
	TuneSeconds   float64 `json:"tune_seconds"`
	// RotatedBytes is what a timed pass touched: the bytes above times the
	// buffer copies it rotated over.
	RotatedBytes int64 `json:"rotated_bytes,omitempty"`
	// Dispatches is the dispatches of one variant per timed pass under
	// --timing ggml (the op repeated on the same buffers), else absent.
	Dispatches int `json:"dispatches,omitempty"`
	// Times is every timed candidate's median in us by variant name (the
	// heuristic and tuned picks included), for evaluating selection rules
	// offline (go run ./cmd/benchreport -eval).
	Times map[string]float64 `json:"times,omitempty"`
	// Forced is the KGEN_FORCE value that narrowed the candidates, if any:
	// heuristic and tuned are then picks among what it left.
	Forced string `json:"forced,omitempty"`
}

// Record implements Runnable.
func (c Case) Record(m *Measurement) Record { return c.result(m) }

func (c Case) result(m *Measurement) *Result {
	return &Result{Case: c, WeightBytes: m.WeightBytes(), Bytes: m.InputBytes() + m.OutputBytes(),
		Heuristic: m.Heuristic, HeuristicUS: m.HeuristicUS, Tuned: m.Tuned, TunedUS: m.TunedUS, Candidates: len(m.Times),
		TunedGBps: m.GBps(m.TunedUS), HeuristicGBps: m.GBps(m.HeuristicUS), TuneSeconds: m.TuneSeconds, RotatedBytes: m.RotatedBytes, Dispatches: m.Dispatches, Times: m.Times, Forced: m.Forced}
}

// Line implements Record.
func (r *Result) Line() string {
	return fmt.Sprintf("%-12s %-8s %6dx%-6d m=%d %-13s heuristic %-28s %8.1f us  tuned %-28s %8.1f us %6.0f GB/s",
		r.Model, r.Layer, r.N, r.K, r.M, r.Dtype, r.Heuristic, r.HeuristicUS, r.Tuned, r.TunedUS, r.TunedGBps)
}

// Run times one model-suite case (Measure) and records it.
func Run(t kruntime.Timer, dev kruntime.Device, c Case, cache *kruntime.TuneCache) (*Result, error) {
	m, err := Measure(t, dev, c.Op(), cache)
	if err != nil {
		return nil, err
	}
	return c.result(m), nil
}

// QuantResult is one timed case of a rows x k suite.
type QuantResult struct {
	QuantCase
	InputBytes  int64 `json:"input_bytes"`  // the in buffers (rows x K elements)
	OutputBytes int64 `json:"output_bytes"` // the out buffers (blocks written)
	Bytes       int64 `json:"bytes"`        // input + output
	// RotatedBytes is what a timed pass touched: input and output times
	// the buffer copies it rotated over (at least 512 MiB on CUDA unless
	// the 64 copies allowed touch less).
	RotatedBytes int64 `json:"rotated_bytes"`
	// Dispatches: as Result's.
	Dispatches  int     `json:"dispatches,omitempty"`
	Heuristic   string  `json:"heuristic"`
	HeuristicUS float64 `json:"heuristic_us"`
	Tuned       string  `json:"tuned"`
	TunedUS     float64 `json:"tuned_us"`
	Candidates  int     `json:"candidates"`
	// Times is every timed variant's median in us by name; TileUS the same
	// by tile (thread, sg, multi, wg).
	Times  map[string]float64 `json:"times"`
	TileUS map[string]float64 `json:"tile_us"`
	// Baseline is the family's baseline variant (the spec's bench.baseline: the
	// thread-per-block tile) and ThreadUS its time; Best the fastest other
	// tile, and Speedup ThreadUS / BestUS.
	Baseline      string  `json:"baseline,omitempty"`
	ThreadUS      float64 `json:"thread_us"`
	BestTile      string  `json:"best_tile"`
	BestUS        float64 `json:"best_us"`
	Speedup       float64 `json:"speedup"`
	BestGBps      float64 `json:"best_gbps"`
	TunedGBps     float64 `json:"tuned_gbps"`
	HeuristicGBps float64 `json:"heuristic_gbps"`
	TuneSeconds   float64 `json:"tune_seconds"`
	Forced        string  `json:"forced,omitempty"` // as Result's

	baseTile string // the baseline's tile, for Line
}

// tileOf is a variant's key in TileUS: its tile, else its name.
func tileOf(v *table.Variant) string {
	if t := v.Param("tile"); t != "" {
		return t
	}
	return v.Name
}

// Record implements Runnable.
func (c QuantCase) Record(m *Measurement) Record { return c.result(m) }

func (c QuantCase) result(m *Measurement) *QuantResult {
	res := &QuantResult{QuantCase: c, InputBytes: m.InputBytes(), OutputBytes: m.OutputBytes(), RotatedBytes: m.RotatedBytes, Dispatches: m.Dispatches,
		Heuristic: m.Heuristic, HeuristicUS: m.HeuristicUS, Tuned: m.Tuned, TunedUS: m.TunedUS, Candidates: len(m.Times),
		Times: m.Times, TileUS: map[string]float64{}, TuneSeconds: m.TuneSeconds, Forced: m.Forced}
	res.Bytes = res.InputBytes + res.OutputBytes
	for name, us := range m.Times {
		v := m.Variants[name]
		if v == nil {
			continue
		}
		tile := tileOf(v)
		res.TileUS[tile] = us
		if v == m.Baseline {
			res.Baseline, res.ThreadUS, res.baseTile = v.Name, us, tile
			continue
		}
		if res.BestTile == "" || us < res.BestUS || us == res.BestUS && tile < res.BestTile {
			res.BestTile, res.BestUS = tile, us
		}
	}
	if res.BestUS > 0 && res.ThreadUS > 0 {
		res.Speedup = res.ThreadUS / res.BestUS
	}
	res.BestGBps, res.TunedGBps, res.HeuristicGBps = m.GBps(res.BestUS), m.GBps(res.TunedUS), m.GBps(res.HeuristicUS)
	return res
}

// Line implements Record.
func (r *QuantResult) Line() string {
	base := r.baseTile
	if base == "" {
		base = "baseline"
	}
	return fmt.Sprintf("%-10s %-4s rows=%-5d k=%-6d %s %9.1f us  best %-6s %8.1f us %6.1fx %6.0f GB/s  heuristic %-24s %8.1f us  tuned %-24s",
		r.Family, r.Dtype, r.Rows, r.K, base, r.ThreadUS, r.BestTile, r.BestUS, r.Speedup, r.BestGBps, r.Heuristic, r.HeuristicUS, r.Tuned)
}

// RunQuant times one rows x k case (Measure) and records it.
func RunQuant(t kruntime.Timer, dev kruntime.Device, c QuantCase, cache *kruntime.TuneCache) (*QuantResult, error) {
	m, err := Measure(t, dev, c.Op(), cache)
	if err != nil {
		return nil, err
	}
	return c.result(m), nil
}
