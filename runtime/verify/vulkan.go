package verify

import (
	"encoding/binary"
	"fmt"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/table"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// poison is a quiet NaN: any output element left unwritten fails the check.
const poison = 0x7FC00000

// VulkanRunner runs SPIR-V variants on a Vulkan device.
type VulkanRunner struct {
	Dev  *vulkan.Device
	dev  kruntime.Device
	pipe map[string]*vulkan.Pipeline
	bufs map[string]*vulkan.Buffer
}

// NewVulkanRunner wraps an open device.
func NewVulkanRunner(d *vulkan.Device) (*VulkanRunner, error) {
	dev, err := kruntime.VulkanDevice(d.Info())
	if err != nil {
		return nil, err
	}
	return &VulkanRunner{Dev: d, dev: dev, pipe: map[string]*vulkan.Pipeline{}, bufs: map[string]*vulkan.Buffer{}}, nil
}

// Device implements Runner.
func (r *VulkanRunner) Device() kruntime.Device { return r.dev }

// Name implements Runner.
func (r *VulkanRunner) Name() string {
	i := r.Dev.Info()
	return fmt.Sprintf("%s (%s, Vulkan, class %s, subgroup %d)", i.Name, i.DriverName, r.dev.Arch, i.SubgroupSize)
}

// Close frees pipelines and buffers.
func (r *VulkanRunner) Close() {
	for _, p := range r.pipe {
		p.Destroy()
	}
	for _, b := range r.bufs {
		b.Free()
	}
}

// Pipeline returns (building once) the pipeline for v on this device. The
// blob's hash is checked against the table before it reaches the driver.
func (r *VulkanRunner) Pipeline(v *table.Variant) (*vulkan.Pipeline, error) {
	var spec []vulkan.SpecConst
	key := v.Artifact
	for _, sc := range v.SpecConsts() {
		val := sc.Value
		if sc.Param == "wg" {
			val = uint32(kruntime.WorkgroupSize(v, r.dev))
		}
		spec = append(spec, vulkan.SpecConst{ID: sc.ID, Value: val})
		key += fmt.Sprintf(" %d=%d", sc.ID, val)
	}
	if p, ok := r.pipe[key]; ok {
		return p, nil
	}
	blob, err := kruntime.SPIRV(v)
	if err != nil {
		return nil, err
	}
	// GEMV: W, X, scale, Y, partial, counter and (T, N, K); quantizers: X, Y
	// and (rows, K, blocks per row, blocks per workgroup).
	buffers, push := 6, 12
	if kruntime.IsQuant(v.Family) {
		buffers, push = 2, 16
	}
	p, err := r.Dev.NewPipeline(blob, "main", spec, buffers, push)
	if err != nil {
		return nil, err
	}
	r.pipe[key] = p
	return p, nil
}

// buffer returns a buffer of at least size bytes for a slot, reused.
func (r *VulkanRunner) buffer(slot string, size int) (*vulkan.Buffer, error) {
	if size < 16 {
		size = 16
	}
	if b, ok := r.bufs[slot]; ok && b.Size() >= size {
		return b, nil
	} else if ok {
		b.Free()
	}
	b, err := r.Dev.NewBuffer(size + size/2)
	if err != nil {
		return nil, err
	}
	if slot == "counter" {
		if err := b.Fill(0); err != nil {
			return nil, err
		}
	}
	r.bufs[slot] = b
	return b, nil
}

// RunGEMV implements Runner.
func (r *VulkanRunner) RunGEMV(v *table.Variant, s Shape, w, x, scale []byte) ([]float32, error) {
	l, err := kruntime.PlanGEMV(v, r.dev, s.T, s.N, s.K)
	if err != nil {
		return nil, err
	}
	p, err := r.Pipeline(v)
	if err != nil {
		return nil, err
	}
	sizes := map[string]int{"w": len(w), "x": len(x), "scale": len(scale), "y": l.YBytes, "partial": l.PartialBytes, "counter": l.CounterBytes}
	bufs := map[string]*vulkan.Buffer{}
	for _, slot := range []string{"w", "x", "scale", "y", "partial", "counter"} {
		if bufs[slot], err = r.buffer(slot, sizes[slot]); err != nil {
			return nil, err
		}
	}
	if err := l.CheckBuffers(v.Name, bufs["w"].Size(), bufs["x"].Size(), bufs["scale"].Size(), bufs["y"].Size(), bufs["partial"].Size(), bufs["counter"].Size()); err != nil {
		return nil, err
	}
	for slot, data := range map[string][]byte{"w": w, "x": x, "scale": scale} {
		if err := bufs[slot].Upload(data); err != nil {
			return nil, err
		}
	}
	if err := bufs["y"].Fill(poison); err != nil {
		return nil, err
	}
	push := make([]byte, 12)
	for i, val := range l.Push {
		binary.LittleEndian.PutUint32(push[4*i:], val)
	}
	err = r.Dev.Run(vulkan.Dispatch{Pipeline: p, Buffers: []*vulkan.Buffer{bufs["w"], bufs["x"], bufs["scale"], bufs["y"], bufs["partial"], bufs["counter"]},
		Push: push, Groups: l.Groups})
	if err != nil {
		return nil, err
	}
	out := make([]byte, l.YBytes)
	if err := bufs["y"].Download(out); err != nil {
		return nil, err
	}
	return floats(out), nil
}

// quantPoison fills quantizer outputs: every byte 0xFF, so any byte a kernel
// leaves unwritten differs from the reference somewhere (a 0xFF qs byte is
// possible, but not a whole block of them with d = NaN).
const quantPoison = 0xFFFFFFFF

// RunQuant implements Runner: Y (and the rest of its buffer) is poisoned
// with 0xFF bytes first; the returned bytes are Y plus what follows it in
// the buffer, up to guard bytes, which must stay 0xFF.
func (r *VulkanRunner) RunQuant(v *table.Variant, rows, K int, x []byte, guard int) ([]byte, error) {
	l, err := kruntime.PlanQuant(v, r.dev, rows, K)
	if err != nil {
		return nil, err
	}
	p, err := r.Pipeline(v)
	if err != nil {
		return nil, err
	}
	bx, err := r.buffer("qx", len(x))
	if err != nil {
		return nil, err
	}
	by, err := r.buffer("qy", l.YBytes+guard)
	if err != nil {
		return nil, err
	}
	if err := l.CheckBuffers(v.Name, bx.Size(), by.Size()); err != nil {
		return nil, err
	}
	if err := bx.Upload(x); err != nil {
		return nil, err
	}
	if err := by.Fill(quantPoison); err != nil {
		return nil, err
	}
	push := make([]byte, 16)
	for i, val := range l.Push {
		binary.LittleEndian.PutUint32(push[4*i:], val)
	}
	if err := r.Dev.Run(vulkan.Dispatch{Pipeline: p, Buffers: []*vulkan.Buffer{bx, by}, Push: push, Groups: l.Groups}); err != nil {
		return nil, err
	}
	out := make([]byte, l.YBytes+guard)
	if err := by.Download(out); err != nil {
		return nil, err
	}
	return out, nil
}
