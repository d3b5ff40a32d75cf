package verify

import (
	"fmt"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/driver"
	"github.com/kgen-dev/kgen/runtime/table"
)

// DriverRunner runs the HIP table rows of one arch through a GPU driver
// context (runtime/driver): on AMD through HIP, or on NVIDIA through CUDA
// with the arch's generated source compiled by nvcc (kgen_hip.h maps the
// HIP names to CUDA). The module images hold the kernels of
// generated/hip/<family>_<arch>.hip files (a file may be split into parts
// compiled separately) under their extern "C" names, the variants' Names;
// each kernel is looked up across all of them and must be in one.
type DriverRunner struct {
	Ctx   *driver.Context
	arch  string
	dev   kruntime.Device
	mods  *driver.Modules
	funcs map[string]*driver.Function
	bufs  map[string]driverBuf
}

type driverBuf struct {
	p    driver.Ptr
	size int
}

// NewDriverRunner loads images (cubins, PTX or AMD code objects built from
// the arch's .hip files) into ctx. The arch's kernels are compiled for the
// arch's wave size (kWave), so the device's warp size must equal it: on an
// NVIDIA GPU (warp 32) use a wave-32 arch's file.
func NewDriverRunner(ctx *driver.Context, arch string, images ...driver.Image) (*DriverRunner, error) {
	a, err := kruntime.ArchDevice(arch)
	if err != nil {
		return nil, err
	}
	if a.Backend != "hip" {
		return nil, fmt.Errorf("arch %q is a %s device class, not a HIP arch", arch, a.Backend)
	}
	info := ctx.Info()
	if info.WarpSize != a.Wave {
		return nil, fmt.Errorf("arch %s kernels are built for wave %d but %s has warp size %d: use an arch whose wave is %d",
			arch, a.Wave, info.Name, info.WarpSize, info.WarpSize)
	}
	mods, err := ctx.LoadModules(images...)
	if err != nil {
		return nil, fmt.Errorf("load %s module: %w", arch, err)
	}
	return &DriverRunner{
		Ctx: ctx, arch: arch, mods: mods, funcs: map[string]*driver.Function{}, bufs: map[string]driverBuf{},
		dev: kruntime.Device{
			Backend: "hip", Arch: arch, Name: info.Name, Wave: info.WarpSize, ComputeUnits: info.ComputeUnits,
			SharedMemory: info.SharedMemPerBlock, MaxWorkgroup: info.MaxThreadsPerBlock, MinSubgroup: info.WarpSize,
			Driver: info.DriverString(),
		},
	}, nil
}

// Device implements Runner.
func (r *DriverRunner) Device() kruntime.Device { return r.dev }

// Name implements Runner.
func (r *DriverRunner) Name() string {
	i := r.Ctx.Info()
	return fmt.Sprintf("%s (%s, HIP source for %s, warp %d)", i.Name, i.DriverString(), r.arch, i.WarpSize)
}

// Close frees the runner's buffers and unloads its modules; the Context
// stays open (its owner closes it).
func (r *DriverRunner) Close() {
	for _, b := range r.bufs {
		r.Ctx.Free(b.p)
	}
	r.bufs = map[string]driverBuf{}
	if r.mods != nil {
		r.mods.Unload()
		r.mods = nil
	}
}

// Has reports whether the kernel of v is in one of the runner's modules (an
// error: it is in two, or the driver failed).
func (r *DriverRunner) Has(v *table.Variant) (bool, error) {
	if r.mods == nil {
		return false, fmt.Errorf("runner is closed")
	}
	return r.mods.Has(v.Name)
}

// Present returns the variants of variants (HIP rows of the runner's arch)
// whose family has at least one kernel in the modules: every variant of
// such a family, present or not, so a missing part of a split build fails
// verification instead of passing unnoticed. families lists those families
// in table order.
func (r *DriverRunner) Present(variants []table.Variant) (present []table.Variant, families []string, err error) {
	has := map[string]bool{}
	for i := range variants {
		v := &variants[i]
		if v.Backend != "hip" || v.Arch != r.arch || has[v.Family] {
			continue
		}
		ok, err := r.Has(v)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			has[v.Family] = true
			families = append(families, v.Family)
		}
	}
	for _, v := range variants {
		if v.Backend == "hip" && v.Arch == r.arch && has[v.Family] {
			present = append(present, v)
		}
	}
	return present, families, nil
}

// function returns (looking up once) the kernel named by the variant.
func (r *DriverRunner) function(v *table.Variant) (*driver.Function, error) {
	if f, ok := r.funcs[v.Name]; ok {
		return f, nil
	}
	if r.mods == nil {
		return nil, fmt.Errorf("runner is closed")
	}
	f, err := r.mods.Function(v.Name)
	if err != nil {
		return nil, err
	}
	r.funcs[v.Name] = f
	return f, nil
}

// buffer returns a device buffer of at least size bytes for a slot, reused
// across runs; a zero slot is zeroed when (re)allocated (the kernels leave
// such buffers zero).
func (r *DriverRunner) buffer(slot string, size int, zero bool) (driverBuf, error) {
	size = max(size, 16)
	if b, ok := r.bufs[slot]; ok && b.size >= size {
		return b, nil
	} else if ok {
		r.Ctx.Free(b.p)
		delete(r.bufs, slot)
	}
	size = (size + size/2 + 3) &^ 3
	p, err := r.Ctx.Alloc(size)
	if err != nil {
		return driverBuf{}, err
	}
	b := driverBuf{p: p, size: size}
	if zero {
		if err := r.Ctx.Memset32(p, 0, size/4); err != nil {
			r.Ctx.Free(p)
			return driverBuf{}, err
		}
	}
	r.bufs[slot] = b
	return b, nil
}

// Run implements Runner: grid l.Groups, block l.Workgroup, kernel arguments
// the planned buffers' pointers in order, then l.KernelArgs().
func (r *DriverRunner) Run(l *kruntime.Launch, inputs map[string][]byte, poison uint32, guard int) ([]byte, error) {
	v := l.Variant
	if v.Backend != "hip" || v.Arch != r.arch {
		return nil, fmt.Errorf("%s: this runner runs hip/%s variants", v.Key(), r.arch)
	}
	f, err := r.function(v)
	if err != nil {
		return nil, err
	}
	bufs := make([]driverBuf, len(l.Buffers))
	sizes := make([]int, len(l.Buffers))
	for i, pb := range l.Buffers {
		size := pb.Size
		if pb.Dir == "out" {
			size += guard
		}
		if bufs[i], err = r.buffer(slotName(pb), size, pb.Zero); err != nil {
			return nil, err
		}
		sizes[i] = bufs[i].size
	}
	if err := l.CheckBuffers(sizes); err != nil {
		return nil, err
	}
	out, outBytes := -1, 0
	args := make([]any, 0, len(l.Buffers)+len(l.Args))
	for i, pb := range l.Buffers {
		switch pb.Dir {
		case "in":
			data, ok := inputs[pb.Name]
			if !ok {
				return nil, fmt.Errorf("%s: no input for buffer %s", v.Name, pb.Name)
			}
			if err := r.Ctx.Upload(bufs[i].p, data); err != nil {
				return nil, err
			}
		case "out":
			if err := r.Ctx.Memset32(bufs[i].p, poison, bufs[i].size/4); err != nil {
				return nil, err
			}
			out, outBytes = i, pb.Size+guard
		}
		args = append(args, bufs[i].p)
	}
	if out < 0 {
		return nil, fmt.Errorf("%s: the launch has no out buffer", v.Name)
	}
	args = append(args, l.KernelArgs()...)
	if err := r.Ctx.Launch(f, l.Groups, [3]uint32{uint32(l.Workgroup), 1, 1}, 0, args...); err != nil {
		return nil, err
	}
	if err := r.Ctx.Sync(); err != nil {
		return nil, fmt.Errorf("run %s: %w", v.Name, err)
	}
	got := make([]byte, outBytes)
	if err := r.Ctx.Download(got, bufs[out].p); err != nil {
		return nil, err
	}
	return got, nil
}
