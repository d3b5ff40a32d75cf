// Package bench times kernel variants of any family on a GPU: CUDA/HIP
// through the driver API (Runner) and Vulkan with timestamps
// (VulkanTimer). Both time a variant from its launch plan (runtime.Plan):
// the contract's buffers, in buffers filled with random finite data, every
// in and out buffer rotated over copies so each launch streams from device
// memory (pool). Measure times an op's heuristic pick and the candidates
// runtime.Tune sweeps; a suite case turns the measurement into its record
// (Result for the model suite, QuantResult for the rows x k suite).
package bench

import (
	"fmt"
	"math/rand/v2"
	"sort"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/driver"
	"github.com/kgen-dev/kgen/runtime/table"
)

// Kernels finds kernels by name: a *driver.Module, or *driver.Modules to
// look them up across several.
type Kernels interface {
	Function(name string) (*driver.Function, error)
}

// Runner times variants of one HIP-source arch on a driver context (CUDA
// or HIP): a runtime.Timer for every family. Buffers are set up once per op
// and reused for every candidate of that op (pool).
type Runner struct {
	Ctx  *driver.Context
	Mod  Kernels
	Dev  kruntime.Device
	Reps int
	Rng  *rand.Rand
	// RotateBytes is what one timed pass touches at least (0: 512 MiB).
	RotateBytes int
	// Launch is how a timed pass is launched: LaunchEager (or "") from the
	// host, each launch inside the timed region; LaunchGraph captured into
	// a CUDA graph once and its replays timed.
	Launch LaunchMode

	pool *pool[driver.Ptr]
}

// cudaMem is a driver context's memory for a pool.
type cudaMem struct{ ctx *driver.Context }

func (m cudaMem) alloc(n int) (driver.Ptr, error)        { return m.ctx.Alloc(n) }
func (m cudaMem) upload(p driver.Ptr, data []byte) error { return m.ctx.Upload(p, data) }
func (m cudaMem) zero(p driver.Ptr, n int) error         { return m.ctx.Memset32(p, 0, n/4) }
func (m cudaMem) free(p driver.Ptr)                      { m.ctx.Free(p) }

// Close frees the buffers.
func (r *Runner) Close() {
	if r.pool != nil {
		r.pool.close()
	}
}

// Rotated is the bytes a timed pass of op touches (0 before op is timed).
func (r *Runner) Rotated(op kruntime.Op) int64 { return rotatedOf(r.pool, op) }

func rotatedOf[B comparable](p *pool[B], op kruntime.Op) int64 {
	if p == nil || p.bufs == nil || !sameOp(p.op, op) {
		return 0
	}
	return p.rotated()
}

// sameOp compares ops the way Plan fills them in (family and dtype may be
// left empty by the caller: they are the variant's).
func sameOp(planned, op kruntime.Op) bool {
	if op.Family == "" {
		op.Family = planned.Family
	}
	if op.Dtype == "" {
		op.Dtype = planned.Dtype
	}
	return planned == op
}

// time times reps passes of launch, each pass's GPU time in microseconds.
// Every timed launch of the Runner goes through it.
func (r *Runner) time(reps int, launch func() error) ([]float64, error) {
	mode := r.Launch
	if mode == "" {
		mode = LaunchEager
	}
	return timeLaunches(r.Ctx, mode, reps, launch)
}

// Time implements runtime.Timer: the median over Reps of a pass of one
// launch per buffer copy, divided by the copies, in microseconds.
func (r *Runner) Time(v *table.Variant, op kruntime.Op) (float64, error) {
	l, err := kruntime.Plan(v, r.Dev, op)
	if err != nil {
		return 0, err
	}
	fn, err := r.Mod.Function(v.Name)
	if err != nil {
		return 0, err
	}
	if r.pool == nil {
		r.pool = &pool[driver.Ptr]{mem: cudaMem{r.Ctx}, rng: r.Rng, target: r.RotateBytes}
	}
	p := r.pool
	if err := p.prepare(l); err != nil {
		return 0, err
	}
	if err := l.CheckBuffers(p.sizes()); err != nil {
		return 0, err
	}
	args := make([][]any, p.n)
	for i := range args {
		for _, b := range p.buffers(i) {
			args[i] = append(args[i], b)
		}
		args[i] = append(args[i], l.KernelArgs()...)
	}
	block := [3]uint32{uint32(l.Workgroup), 1, 1}
	pass := func() error {
		for _, a := range args {
			if err := r.Ctx.Launch(fn, l.Groups, block, 0, a...); err != nil {
				return err
			}
		}
		return nil
	}
	return median(r.Reps, len(args), func(reps int) ([]float64, error) { return r.time(reps, pass) })
}

// median runs 3 warm-up passes, then max(reps, 1) timed ones, and returns
// the median pass time divided by the launches of a pass.
func median(reps, launches int, time func(reps int) ([]float64, error)) (float64, error) {
	return medianAfter(3, reps, launches, time)
}

// medianAfter is median after warm warm-up passes.
func medianAfter(warm, reps, launches int, time func(reps int) ([]float64, error)) (float64, error) {
	if _, err := time(warm); err != nil {
		return 0, fmt.Errorf("warm-up: %w", err)
	}
	ts, err := time(max(reps, 1))
	if err != nil {
		return 0, err
	}
	sort.Float64s(ts)
	return ts[len(ts)/2] / float64(launches), nil
}

func dtypeOf(name string) table.Dtype {
	for _, d := range kruntime.Dtypes() {
		if d.Name == name {
			return d
		}
	}
	return table.Dtype{}
}
