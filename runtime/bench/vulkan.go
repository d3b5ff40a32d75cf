package bench

import (
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

	pool *pool[*vulkan.Buffer]
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

// Time implements runtime.Timer: the median over Reps of a pass of one
// dispatch per buffer copy, divided by the copies, in microseconds.
func (t *VulkanTimer) Time(v *table.Variant, op kruntime.Op) (float64, error) {
	l, err := kruntime.Plan(v, t.R.Device(), op)
	if err != nil {
		return 0, err
	}
	pl, err := t.R.Pipeline(l)
	if err != nil {
		return 0, err
	}
	if t.pool == nil {
		t.pool = &pool[*vulkan.Buffer]{mem: vulkanMem{t.Dev}, rng: t.Rng, target: t.RotateBytes}
	}
	p := t.pool
	if err := p.prepare(l); err != nil {
		return 0, err
	}
	if err := l.CheckBuffers(p.sizes()); err != nil {
		return 0, err
	}
	push := l.Push()
	ds := make([]vulkan.Dispatch, p.n)
	for i := range ds {
		ds[i] = vulkan.Dispatch{Pipeline: pl, Buffers: p.buffers(i), Push: push, Groups: l.Groups}
	}
	return median(t.Reps, len(ds), func(reps int) ([]float64, error) { return t.time(reps, ds) })
}
