package verify

import (
	"fmt"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// VulkanRunner runs SPIR-V variants on a Vulkan device.
type VulkanRunner struct {
	Dev *vulkan.Device
	// Stats, when not nil, collects the driver's statistics of every
	// pipeline built (registers, code size) by the variant's backend/arch/
	// name; the device must capture them (Device.CaptureStatistics).
	Stats map[string]map[string]float64
	dev   kruntime.Device
	pipe  map[string]*vulkan.Pipeline
	bufs  map[string]*vulkan.Buffer
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
	cm := ""
	if i.CooperativeMatrixNV {
		cm = fmt.Sprintf(", VK_NV_cooperative_matrix %v", i.CooperativeMatrixNVShapes)
	}
	return fmt.Sprintf("%s (%s, Vulkan, class %s, subgroup %d%s)", i.Name, i.DriverName, r.dev.Arch, i.SubgroupSize, cm)
}

// Close frees pipelines and buffers.
func (r *VulkanRunner) Close() {
	for _, p := range r.pipe {
		p.Destroy()
	}
	for _, b := range r.bufs {
		b.Free()
	}
	r.pipe, r.bufs = map[string]*vulkan.Pipeline{}, map[string]*vulkan.Buffer{}
}

// Pipeline returns (building once) the pipeline of l's variant: its blob,
// whose hash is checked against the table before it reaches the driver,
// with the variant's specialization constants, the one the launch contract
// names (launch.workgroup.param) set to l.Workgroup, a binding per planned
// buffer and l.Push() bytes of push constants.
func (r *VulkanRunner) Pipeline(l *kruntime.Launch) (*vulkan.Pipeline, error) {
	v := l.Variant
	if v.Backend != "vulkan" {
		return nil, fmt.Errorf("%s: a Vulkan runner runs SPIR-V variants", v.Key())
	}
	var spec []vulkan.SpecConst
	nbuf, npush := len(l.Buffers), 4*len(l.Args)
	key := fmt.Sprintf("%s b%d p%d", v.Artifact.Path, nbuf, npush)
	for _, sc := range l.SpecConsts() {
		spec = append(spec, vulkan.SpecConst{ID: sc.ID, Value: sc.Value})
		key += fmt.Sprintf(" %d=%d", sc.ID, sc.Value)
	}
	if p, ok := r.pipe[key]; ok {
		return p, nil
	}
	blob, err := kruntime.SPIRV(v)
	if err != nil {
		return nil, err
	}
	p, err := r.Dev.NewPipeline(blob, "main", spec, nbuf, npush)
	if err != nil {
		return nil, err
	}
	r.pipe[key] = p
	if r.Stats != nil {
		m, err := p.StatisticsByName()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.Key(), err)
		}
		r.Stats[v.Key()] = m
	}
	return p, nil
}

// buffer returns a buffer of at least size bytes for a slot, reused across
// runs; a zero slot is zeroed when (re)allocated.
func (r *VulkanRunner) buffer(slot string, size int, zero bool) (*vulkan.Buffer, error) {
	size = max(size, 16)
	if b, ok := r.bufs[slot]; ok && b.Size() >= size {
		return b, nil
	} else if ok {
		b.Free()
		delete(r.bufs, slot)
	}
	b, err := r.Dev.NewBuffer(size + size/2)
	if err != nil {
		return nil, err
	}
	if zero {
		if err := b.Fill(0); err != nil {
			b.Free()
			return nil, err
		}
	}
	r.bufs[slot] = b
	return b, nil
}

// Run implements Runner.
func (r *VulkanRunner) Run(l *kruntime.Launch, inputs map[string][]byte, poison uint32, guard int) ([]byte, error) {
	p, err := r.Pipeline(l)
	if err != nil {
		return nil, err
	}
	bufs := make([]*vulkan.Buffer, len(l.Buffers))
	sizes := make([]int, len(l.Buffers))
	for i, pb := range l.Buffers {
		size := pb.Size
		if pb.Dir == "out" {
			size += guard
		}
		if bufs[i], err = r.buffer(slotName(pb), size, pb.Zero); err != nil {
			return nil, err
		}
		sizes[i] = bufs[i].Size()
	}
	if err := l.CheckBuffers(sizes); err != nil {
		return nil, err
	}
	var out *vulkan.Buffer
	outBytes := 0
	for i, pb := range l.Buffers {
		switch pb.Dir {
		case "in":
			data, ok := inputs[pb.Name]
			if !ok {
				return nil, fmt.Errorf("%s: no input for buffer %s", l.Variant.Name, pb.Name)
			}
			if err := bufs[i].Upload(data); err != nil {
				return nil, err
			}
		case "out":
			if err := bufs[i].Fill(poison); err != nil {
				return nil, err
			}
			out, outBytes = bufs[i], pb.Size+guard
		}
	}
	if out == nil {
		return nil, fmt.Errorf("%s: the launch has no out buffer", l.Variant.Name)
	}
	if err := r.Dev.Run(vulkan.Dispatch{Pipeline: p, Buffers: bufs, Push: l.Push(), Groups: l.Groups}); err != nil {
		return nil, err
	}
	got := make([]byte, outBytes)
	if err := out.Download(got); err != nil {
		return nil, err
	}
	return got, nil
}

// slotName is the reuse slot of a planned buffer: buffers of one name,
// direction and zero requirement share device memory across launches.
func slotName(b kruntime.PlannedBuffer) string {
	s := b.Dir + ":" + b.Name
	if b.Zero {
		s += ":zero"
	}
	return s
}
