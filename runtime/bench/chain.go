package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/driver"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// ChainTimer times a chain's launches (runtime.Chain: a fed_by family's
// producers, then the family's launch) the way Timer times one: a pass of
// one round of the chain per buffer copy, in one timed region (one CUDA
// graph, or one Vulkan command buffer with a compute-to-compute barrier
// before every dispatch), every in and out buffer rotated; the median pass
// divided by the copies. steps selects the steps a round launches (none:
// all); the buffers are the whole chain's either way.
type ChainTimer interface {
	TimeChain(c *kruntime.Chain, steps ...int) (float64, error)
}

// chainLayout lays a chain's launches over one pool: the consumer's
// buffers in its order (a case timed alone before keeps its copies), then
// each producer's other buffers, named FAMILY.NAME; a producer's out buffer
// is the consumer's buffer it feeds. slots[s][j] is the pool slot of step
// s's buffer j.
func chainLayout(c *kruntime.Chain) (bufs []kruntime.PlannedBuffer, fills []string, slots [][]int, err error) {
	if len(c.Steps) == 0 {
		return nil, nil, nil, fmt.Errorf("an empty chain")
	}
	last := len(c.Steps) - 1
	cons := c.Steps[last].Launch
	slots = make([][]int, len(c.Steps))
	for i, b := range cons.Buffers {
		bufs, fills = append(bufs, b), append(fills, FillOf(b, cons.Op.Dtype))
		slots[last] = append(slots[last], i)
	}
	for s, st := range c.Steps[:last] {
		l := st.Launch
		for _, b := range l.Buffers {
			if b.Dir == "out" {
				k := -1
				for i, cb := range cons.Buffers {
					if cb.Name == st.Feeds {
						k = i
					}
				}
				if k < 0 || cons.Buffers[k].Size != b.Size {
					return nil, nil, nil, fmt.Errorf("%s's %s is not %s's buffer %s (plan the chain with runtime.SelectChain)", l.Variant.Name, b.Name, cons.Variant.Name, st.Feeds)
				}
				slots[s] = append(slots[s], k)
				continue
			}
			nb := b
			nb.Name = l.Variant.Family + "." + b.Name
			bufs, fills = append(bufs, nb), append(fills, FillOf(b, l.Op.Dtype))
			slots[s] = append(slots[s], len(bufs)-1)
		}
	}
	return bufs, fills, slots, nil
}

// chainSteps are the steps a timed round launches, in chain order.
func chainSteps(c *kruntime.Chain, steps []int) ([]int, error) {
	if len(steps) == 0 {
		for s := range c.Steps {
			steps = append(steps, s)
		}
		return steps, nil
	}
	for i, s := range steps {
		if s < 0 || s >= len(c.Steps) || i > 0 && s <= steps[i-1] {
			return nil, fmt.Errorf("steps %v of a chain of %d: want increasing step numbers", steps, len(c.Steps))
		}
	}
	return steps, nil
}

// prepareChain makes the pool hold the chain's buffers and checks every
// step's launch against them; it returns each step's pool slots.
func prepareChain[B comparable](p *pool[B], c *kruntime.Chain) ([][]int, error) {
	bufs, fills, slots, err := chainLayout(c)
	if err != nil {
		return nil, err
	}
	if err := p.prepareBuffers(c.Op, bufs, fills); err != nil {
		return nil, err
	}
	held := p.sizes()
	for s, st := range c.Steps {
		sizes := make([]int, len(slots[s]))
		for j, k := range slots[s] {
			sizes[j] = held[k]
		}
		if err := st.Launch.CheckBuffers(sizes); err != nil {
			return nil, err
		}
	}
	return slots, nil
}

// TimeChain implements ChainTimer on a driver context: the steps' kernels
// from Mod (a fed_by family's module and its producers').
func (r *Runner) TimeChain(c *kruntime.Chain, steps ...int) (float64, error) {
	sel, err := chainSteps(c, steps)
	if err != nil {
		return 0, err
	}
	fns := make([]*driver.Function, len(c.Steps))
	for _, s := range sel {
		if fns[s], err = r.Mod.Function(c.Steps[s].Launch.Variant.Name); err != nil {
			return 0, err
		}
	}
	if r.pool == nil {
		r.pool = &pool[driver.Ptr]{mem: cudaMem{r.Ctx}, rng: r.Rng, target: r.RotateBytes}
	}
	p := r.pool
	slots, err := prepareChain(p, c)
	if err != nil {
		return 0, err
	}
	type launch struct {
		fn     *driver.Function
		groups [3]uint32
		block  [3]uint32
		args   []any
	}
	var ls []launch
	for i := 0; i < p.n; i++ {
		copyBufs := p.buffers(i)
		for _, s := range sel {
			l := c.Steps[s].Launch
			var args []any
			for _, k := range slots[s] {
				args = append(args, copyBufs[k])
			}
			ls = append(ls, launch{fns[s], l.Groups, [3]uint32{uint32(l.Workgroup), 1, 1}, append(args, l.KernelArgs()...)})
		}
	}
	pass := func() error {
		for _, x := range ls {
			if err := r.Ctx.Launch(x.fn, x.groups, x.block, 0, x.args...); err != nil {
				return err
			}
		}
		return nil
	}
	return median(r.Reps, p.n, func(reps int) ([]float64, error) { return r.time(reps, pass) })
}

// TimeChain implements ChainTimer with Vulkan timestamps: every round's
// dispatches in one command buffer, a compute-to-compute barrier before
// each (vulkan.Device.Time), so a consumer reads what its producer wrote.
// Under TimingGGML: the producers once, then GGMLRuns consumer dispatches
// on one copy of the buffers, by host wall clock, divided by GGMLRuns.
func (t *VulkanTimer) TimeChain(c *kruntime.Chain, steps ...int) (float64, error) {
	sel, err := chainSteps(c, steps)
	if err != nil {
		return 0, err
	}
	pls := make([]*vulkan.Pipeline, len(c.Steps))
	for _, s := range sel {
		if pls[s], err = t.R.Pipeline(c.Steps[s].Launch); err != nil {
			return 0, err
		}
	}
	if t.pool == nil {
		t.pool = t.newPool()
	}
	p := t.pool
	slots, err := prepareChain(p, c)
	if err != nil {
		return 0, err
	}
	dispatch := func(s int, copyBufs []*vulkan.Buffer) vulkan.Dispatch {
		l := c.Steps[s].Launch
		bs := make([]*vulkan.Buffer, len(slots[s]))
		for j, k := range slots[s] {
			bs[j] = copyBufs[k]
		}
		return vulkan.Dispatch{Pipeline: pls[s], Buffers: bs, Push: l.Push(), Groups: l.Groups}
	}
	if t.ggml() {
		// ggml's way: the producers once, then the consumer GGMLRuns
		// times (the selected producers GGMLRuns times when the consumer
		// is not selected), on one copy of the buffers.
		runs := t.runs(c.Op, p.perCopy)
		last := len(c.Steps) - 1
		var ds []vulkan.Dispatch
		if sel[len(sel)-1] == last {
			for _, s := range sel[:len(sel)-1] {
				ds = append(ds, dispatch(s, p.buffers(0)))
			}
			for i := 0; i < runs; i++ {
				ds = append(ds, dispatch(last, p.buffers(0)))
			}
		} else {
			for i := 0; i < runs; i++ {
				for _, s := range sel {
					ds = append(ds, dispatch(s, p.buffers(0)))
				}
			}
		}
		return medianAfter(1, t.Reps, runs, func(reps int) ([]float64, error) { return t.timeHost(reps, ds) })
	}
	var ds []vulkan.Dispatch
	for i := 0; i < p.n; i++ {
		copyBufs := p.buffers(i)
		for _, s := range sel {
			ds = append(ds, dispatch(s, copyBufs))
		}
	}
	return median(t.Reps, p.n, func(reps int) ([]float64, error) { return t.time(reps, ds) })
}

// Pair is a case's whole decode step timed (gen bench --pair): the
// producers' launches (runtime.SelectChain's picks for the activations'
// dtype) and the case's measured fastest variant, one round per buffer
// copy in one timed pass; PairUS minus the case's TunedUS is what the
// producers and the dependency between the launches cost.
type Pair struct {
	Act string `json:"pair_act"`
	// Producer names the producers' variants (comma-separated when more
	// than one), Consumer the case's variant timed after them.
	Producer string  `json:"pair_producer,omitempty"`
	Consumer string  `json:"pair_consumer,omitempty"`
	US       float64 `json:"pair_us,omitempty"`
	// ProducerUS is the producers alone, over the same buffers.
	ProducerUS   float64 `json:"producer_us,omitempty"`
	RotatedBytes int64   `json:"pair_rotated_bytes,omitempty"`
	// Skipped says why the pair was not timed (a producer outside its
	// family's rules); the fields above are then empty.
	Skipped string `json:"pair_skipped,omitempty"`
}

// MeasurePair times m's op as a chain (runtime.PlanChain) on t: the
// producers picked by runtime.Select for act, the consumer m's tuned pick,
// then the producers alone. A producer that does not serve its op is
// recorded as Skipped, not an error.
func MeasurePair(t ChainTimer, dev kruntime.Device, m *Measurement, act string) (*Pair, error) {
	cons := m.Variants[m.Tuned]
	pick := func(d kruntime.Device, op kruntime.Op) (*kruntime.Choice, error) {
		if cons != nil && sameOp(m.Op, op) {
			return &kruntime.Choice{Variant: cons, Heuristic: cons, Op: op, Device: d, Reasons: []string{"the case's fastest measured variant"}}, nil
		}
		return kruntime.Select(d, op)
	}
	pr := &Pair{Act: act}
	c, err := kruntime.PlanChain(dev, m.Op, act, pick)
	if why, ok := NotEligible(err); ok {
		pr.Skipped = why
		return pr, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	var producers []int
	for s, st := range c.Steps[:len(c.Steps)-1] {
		names, producers = append(names, st.Choice.Variant.Name), append(producers, s)
	}
	pr.Producer, pr.Consumer = strings.Join(names, ","), c.Consumer().Choice.Variant.Name
	if pr.US, err = t.TimeChain(c); err != nil {
		return nil, fmt.Errorf("%s with %s: %w", pr.Consumer, pr.Producer, err)
	}
	if r, ok := t.(interface{ chainRotated() int64 }); ok {
		pr.RotatedBytes = r.chainRotated()
	}
	if pr.ProducerUS, err = t.TimeChain(c, producers...); err != nil {
		return nil, fmt.Errorf("%s: %w", pr.Producer, err)
	}
	return pr, nil
}

func (r *Runner) chainRotated() int64      { return r.pool.rotated() }
func (t *VulkanTimer) chainRotated() int64 { return t.pool.rotated() }

// WithPair is rec with the pair's fields: in the JSON next to rec's own,
// and at the end of its line.
func WithPair(rec Record, p *Pair) Record { return &pairRecord{rec, p} }

type pairRecord struct {
	rec  Record
	pair *Pair
}

// Line implements Record.
func (r *pairRecord) Line() string {
	p := r.pair
	if p.Skipped != "" {
		return r.rec.Line() + "  pair " + p.Act + ": " + p.Skipped
	}
	return fmt.Sprintf("%s  pair %s %-24s %8.1f us (alone %6.1f us)", r.rec.Line(), p.Act, p.Producer, p.US, p.ProducerUS)
}

// MarshalJSON is rec's object with the pair's fields added.
func (r *pairRecord) MarshalJSON() ([]byte, error) {
	a, err := json.Marshal(r.rec)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(r.pair)
	if err != nil {
		return nil, err
	}
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if len(a) < 2 || a[0] != '{' || len(b) < 2 || b[0] != '{' {
		return nil, fmt.Errorf("bench: a record with a pair must be a JSON object")
	}
	if len(a) == 2 {
		return b, nil
	}
	out := append(append([]byte{}, a[:len(a)-1]...), ',')
	return append(out, b[1:]...), nil
}

// CheckPair says whether every family can be timed with --pair act: it
// has fed_by buffers and each producer has variants taking act.
func CheckPair(families []string, act string) error {
	for _, f := range families {
		fds := kruntime.FeedsOf(f)
		if len(fds) == 0 {
			var with []string
			for _, g := range Families() {
				if len(kruntime.FeedsOf(g)) > 0 {
					with = append(with, g)
				}
			}
			return fmt.Errorf("family %s has no fed_by in templates/kernels.yaml: nothing to time before it (families with one: %s)", f, strings.Join(with, ", "))
		}
		for _, fd := range fds {
			if ds := kruntime.FamilyDtypes(fd.Family); !contains(ds, act) {
				return fmt.Errorf("%q: %s's %s comes from %s, which takes %s", act, f, fd.Buffer, fd.Family, strings.Join(ds, ", "))
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
