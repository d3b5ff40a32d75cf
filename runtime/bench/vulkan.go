package bench

import (
	"encoding/binary"
	"math/rand/v2"
	"sort"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/table"
	"github.com/kgen-dev/kgen/runtime/verify"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// VulkanTimer times SPIR-V variants with Vulkan timestamps: one dispatch
// per rotated weight copy per repetition, median over Reps. It is a
// runtime.Timer for the device's class.
type VulkanTimer struct {
	R    *verify.VulkanRunner
	Reps int
	Rng  *rand.Rand
	// RotateBytes is the quantizer input the dispatches rotate over (0:
	// 512 MiB; at most maxVulkanQuantCopies buffers).
	RotateBytes int

	quant *vulkanQuant

	op                            kruntime.Op
	ws                            []*vulkan.Buffer
	x, scale, y, partial, counter *vulkan.Buffer
}

// Close frees the current op's buffers.
func (t *VulkanTimer) Close() { t.free(); t.freeQuant() }

func (t *VulkanTimer) free() {
	for _, b := range append(t.ws, t.x, t.scale, t.y, t.partial, t.counter) {
		if b != nil {
			b.Free()
		}
	}
	t.ws, t.x, t.scale, t.y, t.partial, t.counter = nil, nil, nil, nil, nil, nil
}

// prepare sets up op's buffers; weights are kept across ops of the same
// N x K and weight size, as the CUDA Runner does.
func (t *VulkanTimer) prepare(op kruntime.Op) error {
	if t.ws != nil && t.op == op {
		return nil
	}
	d := t.R.Dev
	dt := dtypeOf(op.Dtype)
	wbytes := weightBytes(op)
	var ws []*vulkan.Buffer
	if t.ws != nil && sameWeights(t.op, op) {
		ws, t.ws = t.ws, nil
	}
	t.free()
	t.op, t.ws = op, ws
	if t.ws == nil {
		wdata := randomBytes(t.Rng, int(wbytes))
		for i := 0; i < rotation(wbytes); i++ {
			b, err := d.NewBuffer(int(wbytes))
			if err != nil {
				return err
			}
			t.ws = append(t.ws, b)
			if err := b.Upload(wdata); err != nil {
				return err
			}
		}
	}
	var err error
	nb := func(n int) *vulkan.Buffer {
		if err != nil {
			return nil
		}
		var b *vulkan.Buffer
		b, err = d.NewBuffer(max(n, 16))
		return b
	}
	t.x, t.scale, t.y = nb(op.M*op.K*dt.ActBytes), nb(4*op.N), nb(4*op.M*op.N)
	t.partial, t.counter = nb(4*8*op.M*op.N), nb(4*op.N)
	if err != nil {
		return err
	}
	if err := t.x.Upload(randomBytes(t.Rng, op.M*op.K*dt.ActBytes)); err != nil {
		return err
	}
	if err := t.scale.Fill(0x3F800000); err != nil {
		return err
	}
	return t.counter.Fill(0)
}

// Time implements runtime.Timer (GEMV and quantizer ops).
func (t *VulkanTimer) Time(v *table.Variant, op kruntime.Op) (float64, error) {
	if kruntime.IsQuant(op.Family) {
		return t.timeQuant(v, op)
	}
	if err := t.prepare(op); err != nil {
		return 0, err
	}
	l, err := kruntime.PlanGEMV(v, t.R.Device(), op.M, op.N, op.K)
	if err != nil {
		return 0, err
	}
	p, err := t.R.Pipeline(v)
	if err != nil {
		return 0, err
	}
	push := make([]byte, 12)
	for i, val := range l.Push {
		binary.LittleEndian.PutUint32(push[4*i:], val)
	}
	var ds []vulkan.Dispatch
	for _, w := range t.ws {
		ds = append(ds, vulkan.Dispatch{Pipeline: p, Buffers: []*vulkan.Buffer{w, t.x, t.scale, t.y, t.partial, t.counter}, Push: push, Groups: l.Groups})
	}
	if _, err := t.R.Dev.Time(ds, 3); err != nil { // warm-up
		return 0, err
	}
	ns, err := t.R.Dev.Time(ds, t.Reps)
	if err != nil {
		return 0, err
	}
	sort.Float64s(ns)
	return ns[len(ns)/2] / 1e3 / float64(len(ds)), nil
}
