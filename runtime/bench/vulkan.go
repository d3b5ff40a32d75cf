package bench

import (
	"fmt"
	"math/rand/v2"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/table"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// Pipelines builds SPIR-V variants' pipelines on one Vulkan device
// (verify.VulkanRunner is one).
type Pipelines interface {
	// Device is the device as the runtime sees it (class, wave, limits).
	Device() kruntime.Device
	// Pipeline returns the pipeline of l's variant: its blob, its
	// specialization constants (the contract's workgroup parameter set to
	// l.Workgroup), a binding per planned buffer and l.Push() bytes of
	// push constants.
	Pipeline(l *kruntime.Launch) (*vulkan.Pipeline, error)
}

// VulkanTimer times SPIR-V variants of any family with Vulkan timestamps:
// one dispatch per buffer copy per pass, all passes recorded in one command
// buffer, the median over Reps. It is a runtime.Timer for the device's
// class.
type VulkanTimer struct {
	Dev  *vulkan.Device
	R    Pipelines
	Reps int
	Rng  *rand.Rand
	// RotateBytes is what one timed pass touches at least (0: 512 MiB).
	RotateBytes int
	// Timing is how a variant is timed (gen bench --timing): TimingRotate
	// ("" too) or TimingGGML.
	Timing string
	// MaxRuns bounds the dispatches per pass under TimingGGML (0: none,
	// GGMLRuns as is; tests on slow devices set it).
	MaxRuns int
	// Stats, when not nil, collects what the driver compiled each timed
	// variant into (Pipeline.Statistics: registers, code size) by variant
	// name; the device must capture statistics (Device.CaptureStatistics).
	Stats map[string]map[string]float64

	pool *pool[*vulkan.Buffer]
}

// Timing modes of a VulkanTimer (gen bench --timing).
const (
	// TimingRotate: GPU timestamps around a pass of one dispatch per
	// buffer copy (every in and out buffer rotated over copies so that a
	// pass touches RotateBytes: weights stream from device memory), the
	// median pass over Reps divided by the copies.
	TimingRotate = "rotate"
	// TimingGGML: as ggml's test-backend-ops perf mode times an op. One
	// copy of every buffer (the same weights every dispatch: a working set
	// under the L2 stays there), GGMLRuns(op) dispatches of the variant in
	// one command buffer (a barrier between dispatches, as ggml's between
	// nodes writing one tensor), the host wall clock from submit to the
	// fence wait's return; the median over Reps submissions (after one
	// warm-up) divided by the dispatches. A chain (--pair) runs its
	// producers once, then the consumer GGMLRuns(op) times: ggml quantizes
	// a matmul's f32 activations to Q8_1 once per graph and reuses them
	// for the repeated nodes on the same src1.
	TimingGGML = "ggml"
)

// CheckTiming says whether s names a timing mode.
func CheckTiming(s string) error {
	switch s {
	case "", TimingRotate, TimingGGML:
		return nil
	}
	return fmt.Errorf("%q: want %s or %s", s, TimingRotate, TimingGGML)
}

// GGMLRuns is how many times ggml's test-backend-ops (ggml d99724f,
// eval_perf) repeats an op in its timed graph: an op of 2mnk flops (op.M,
// N, K all positive: the matmul families) min(8191, 1e11 / flops) + 1
// times, another min(8191, 32 GiB / bytes) + 1 times, bytes being what it
// reads and writes.
func GGMLRuns(op kruntime.Op, bytes int64) int {
	const nodes = 8192 - 1
	var n int64
	if op.M > 0 && op.N > 0 && op.K > 0 {
		n = 100_000_000_000 / (2 * int64(op.M) * int64(op.N) * int64(op.K))
	} else {
		n = (32 << 30) / max(bytes, 1)
	}
	return int(min(n, nodes)) + 1
}

func (t *VulkanTimer) ggml() bool { return t.Timing == TimingGGML }

// Dispatches is how many dispatches of op's variant a timed pass holds
// (TimingGGML: GGMLRuns; 0 otherwise: one per rotated copy, see Rotated).
func (t *VulkanTimer) Dispatches(op kruntime.Op) int {
	if !t.ggml() || t.pool == nil || t.pool.op != op {
		return 0
	}
	return t.runs(op, t.pool.perCopy)
}

// runs is GGMLRuns bounded by MaxRuns.
func (t *VulkanTimer) runs(op kruntime.Op, bytes int64) int {
	n := GGMLRuns(op, bytes)
	if t.MaxRuns > 0 {
		n = min(n, t.MaxRuns)
	}
	return n
}

// newPool is the timer's pool: one copy of each buffer under TimingGGML.
func (t *VulkanTimer) newPool() *pool[*vulkan.Buffer] {
	target := t.RotateBytes
	if t.ggml() {
		target = 1
	}
	return &pool[*vulkan.Buffer]{mem: vulkanMem{t.Dev}, rng: t.Rng, target: target}
}

// timeHost times reps submissions of the dispatches by host wall clock, in
// microseconds each (TimingGGML).
func (t *VulkanTimer) timeHost(reps int, ds []vulkan.Dispatch) ([]float64, error) {
	ns, err := t.Dev.TimeHost(ds, reps)
	for i := range ns {
		ns[i] /= 1e3
	}
	return ns, err
}

// vulkanMem is a Vulkan device's memory for a pool.
type vulkanMem struct{ d *vulkan.Device }

func (m vulkanMem) alloc(n int) (*vulkan.Buffer, error)        { return m.d.NewBuffer(n) }
func (m vulkanMem) upload(b *vulkan.Buffer, data []byte) error { return b.Upload(data) }
func (m vulkanMem) zero(b *vulkan.Buffer, _ int) error         { return b.Fill(0) }
func (m vulkanMem) free(b *vulkan.Buffer)                      { b.Free() }

// Close frees the buffers.
func (t *VulkanTimer) Close() {
	if t.pool != nil {
		t.pool.close()
	}
}

// Rotated is the bytes a timed pass of op touches (0 before op is timed).
func (t *VulkanTimer) Rotated(op kruntime.Op) int64 { return rotatedOf(t.pool, op) }

// time times reps passes of the dispatches, each pass's GPU time in
// microseconds. Every timed dispatch of the timer goes through it.
func (t *VulkanTimer) time(reps int, ds []vulkan.Dispatch) ([]float64, error) {
	ns, err := t.Dev.Time(ds, reps)
	for i := range ns {
		ns[i] /= 1e3
	}
	return ns, err
}

// Prepare implements runtime.Preparer: it builds the pipelines of vs for
// op before any is timed. On NVIDIA's driver (580.159, H100) with a cold
// shader cache, candidates timed as each was built ran 2-5x slow (a third
// of dense-27b's down candidates); built all first, none did (run
// h100-2026-12-06k).
func (t *VulkanTimer) Prepare(vs []*table.Variant, op kruntime.Op) error {
	for _, v := range vs {
		l, err := kruntime.Plan(v, t.R.Device(), op)
		if err != nil {
			return fmt.Errorf("%s: %w", v.Name, err)
		}
		if _, err := t.R.Pipeline(l); err != nil {
			return fmt.Errorf("%s: %w", v.Name, err)
		}
	}
	return nil
}

// Time implements runtime.Timer: the median over Reps of a pass of one
// dispatch per buffer copy, divided by the copies, in microseconds
// (TimingGGML: of GGMLRuns dispatches on one copy, by host wall clock).
func (t *VulkanTimer) Time(v *table.Variant, op kruntime.Op) (float64, error) {
	l, err := kruntime.Plan(v, t.R.Device(), op)
	if err != nil {
		return 0, err
	}
	pl, err := t.R.Pipeline(l)
	if err != nil {
		return 0, err
	}
	if _, seen := t.Stats[v.Name]; t.Stats != nil && !seen {
		m, err := pl.StatisticsByName()
		if err != nil {
			return 0, fmt.Errorf("%s: %w", v.Name, err)
		}
		t.Stats[v.Name] = m
	}
	if t.pool == nil {
		t.pool = t.newPool()
	}
	p := t.pool
	if err := p.prepare(l); err != nil {
		return 0, err
	}
	if err := l.CheckBuffers(p.sizes()); err != nil {
		return 0, err
	}
	push := l.Push()
	if t.ggml() {
		runs := t.runs(op, p.perCopy)
		ds := make([]vulkan.Dispatch, runs)
		for i := range ds {
			ds[i] = vulkan.Dispatch{Pipeline: pl, Buffers: p.buffers(0), Push: push, Groups: l.Groups}
		}
		return medianAfter(1, t.Reps, runs, func(reps int) ([]float64, error) { return t.timeHost(reps, ds) })
	}
	ds := make([]vulkan.Dispatch, p.n)
	for i := range ds {
		ds[i] = vulkan.Dispatch{Pipeline: pl, Buffers: p.buffers(i), Push: push, Groups: l.Groups}
	}
	return median(t.Reps, len(ds), func(reps int) ([]float64, error) { return t.time(reps, ds) })
}
