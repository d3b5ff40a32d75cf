package bench

import (
	"encoding/binary"
	"sort"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/table"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// maxVulkanQuantCopies bounds the input/output buffer pairs a Vulkan
// quantizer case rotates over (each is its own allocation, and Vulkan only
// promises 4096): inputs under 512 MiB / 512 = 1 MiB rotate over less than
// 512 MiB there (the result's rotated_bytes says how much).
const maxVulkanQuantCopies = 512

type vulkanQuant struct {
	op     kruntime.Op
	xs, ys []*vulkan.Buffer
}

func (t *VulkanTimer) freeQuant() {
	if t.quant == nil {
		return
	}
	for _, b := range append(t.quant.xs, t.quant.ys...) {
		b.Free()
	}
	t.quant = nil
}

func (t *VulkanTimer) rotateBytes() int {
	if t.RotateBytes > 0 {
		return t.RotateBytes
	}
	return quantRotate
}

// prepareQuant allocates the op's input copies (random data) and outputs.
func (t *VulkanTimer) prepareQuant(op kruntime.Op, l *kruntime.QuantLaunch) (*vulkanQuant, error) {
	if t.quant != nil && t.quant.op == op {
		return t.quant, nil
	}
	t.freeQuant()
	q := &vulkanQuant{op: op}
	t.quant = q
	n := min(max(1, (t.rotateBytes()+l.XBytes-1)/l.XBytes), maxVulkanQuantCopies)
	data := quantInput(t.Rng, op.Dtype, l.XBytes)
	for i := 0; i < n; i++ {
		x, err := t.R.Dev.NewBuffer(max(l.XBytes, 16))
		if err != nil {
			return nil, err
		}
		q.xs = append(q.xs, x)
		if err := x.Upload(data); err != nil {
			return nil, err
		}
		y, err := t.R.Dev.NewBuffer(max(l.YBytes, 16))
		if err != nil {
			return nil, err
		}
		q.ys = append(q.ys, y)
	}
	return q, nil
}

func (t *VulkanTimer) rotated(op kruntime.Op) int64 {
	if t.quant == nil || t.quant.op != op || len(t.quant.xs) == 0 {
		return 0
	}
	return int64(len(t.quant.xs)) * int64(t.quant.xs[0].Size())
}

// timeQuant times one dispatch per input copy per repetition with Vulkan
// timestamps; the median over Reps divided by the copies.
func (t *VulkanTimer) timeQuant(v *table.Variant, op kruntime.Op) (float64, error) {
	l, err := kruntime.PlanQuant(v, t.R.Device(), op.M, op.K)
	if err != nil {
		return 0, err
	}
	p, err := t.R.Pipeline(v)
	if err != nil {
		return 0, err
	}
	q, err := t.prepareQuant(op, l)
	if err != nil {
		return 0, err
	}
	push := make([]byte, 16)
	for i, val := range l.Push {
		binary.LittleEndian.PutUint32(push[4*i:], val)
	}
	ds := make([]vulkan.Dispatch, len(q.xs))
	for i := range q.xs {
		ds[i] = vulkan.Dispatch{Pipeline: p, Buffers: []*vulkan.Buffer{q.xs[i], q.ys[i]}, Push: push, Groups: l.Groups}
	}
	if _, err := t.R.Dev.Time(ds, 3); err != nil { // warm-up
		return 0, err
	}
	ns, err := t.R.Dev.Time(ds, max(t.Reps, 1))
	if err != nil {
		return 0, err
	}
	sort.Float64s(ns)
	return ns[len(ns)/2] / 1e3 / float64(len(ds)), nil
}
