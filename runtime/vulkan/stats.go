package vulkan

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"unsafe"
)

// statsFuncs are VK_KHR_pipeline_executable_properties' entry points, bound
// only on devices that have the feature.
type statsFuncs struct {
	GetPipelineExecutablePropertiesKHR              func(dev uintptr, info *vkPipelineInfoKHR, count *uint32, props *vkPipelineExecutablePropertiesKHR) int32
	GetPipelineExecutableStatisticsKHR              func(dev uintptr, info *vkPipelineExecutableInfoKHR, count *uint32, stats *vkPipelineExecutableStatisticKHR) int32
	GetPipelineExecutableInternalRepresentationsKHR func(dev uintptr, info *vkPipelineExecutableInfoKHR, count *uint32,
		reprs *vkPipelineExecutableInternalRepresentationKHR) int32
}

// Statistic is one figure a driver reports about what it compiled a
// pipeline into (VK_KHR_pipeline_executable_properties): NVIDIA's include
// the register count and the binary size, AMD's the VGPRs and SGPRs.
// The names and their meaning are the driver's own.
type Statistic struct {
	Executable  string // the executable's name ("Compute Shader" or similar)
	Name        string
	Description string
	Value       float64 // booleans are 0 or 1
}

// String is "name = value" with an integer value printed as one.
func (s Statistic) String() string {
	v := strconv.FormatFloat(s.Value, 'g', -1, 64)
	if s.Value == math.Trunc(s.Value) && math.Abs(s.Value) < 1<<53 {
		v = strconv.FormatInt(int64(s.Value), 10)
	}
	return s.Name + " = " + v
}

// CaptureStatistics makes pipelines built from now on keep the driver's
// statistics for Pipeline.Statistics (it may make building them slower).
// It fails on a device without VK_KHR_pipeline_executable_properties.
func (d *Device) CaptureStatistics(on bool) error {
	return d.setCapture(&d.capture, on, "pipeline statistics")
}

// setCapture sets one of the device's capture flags; turning one on needs
// VK_KHR_pipeline_executable_properties (what names the query, for the
// error).
func (d *Device) setCapture(flag *bool, on bool, what string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if on && d.stats == nil {
		return fmt.Errorf("vulkan: device %q (%s) does not report %s (no VK_KHR_pipeline_executable_properties)",
			d.info.Name, d.info.DriverInfo, what)
	}
	*flag = on
	return nil
}

// CaptureInternalRepresentations makes pipelines built from now on keep
// what the driver compiled them into, for Pipeline.InternalRepresentations
// (drivers choose what they give: an IR, disassembly, or nothing). It
// fails on a device without VK_KHR_pipeline_executable_properties.
func (d *Device) CaptureInternalRepresentations(on bool) error {
	return d.setCapture(&d.captureIR, on, "internal representations")
}

// Representation is one internal representation of a pipeline executable
// as the driver gives it (VK_KHR_pipeline_executable_properties).
type Representation struct {
	Executable  string
	Name        string
	Description string
	Text        bool   // Data is text (without its terminating NUL)
	Data        []byte // as the driver wrote it
}

// InternalRepresentations returns what the driver kept of each executable
// of a pipeline built after Device.CaptureInternalRepresentations(true);
// none is not an error (a driver need not keep any).
func (p *Pipeline) InternalRepresentations() ([]Representation, error) {
	var out []Representation
	err := p.eachExecutable("internal representations", p.capturedIR, "CaptureInternalRepresentations",
		func(pn *runtime.Pinner, ei *vkPipelineExecutableInfoKHR, exe string) error {
			d := p.d
			const name = "vkGetPipelineExecutableInternalRepresentationsKHR"
			call := func(n *uint32, first *vkPipelineExecutableInternalRepresentationKHR) int32 {
				return d.stats.GetPipelineExecutableInternalRepresentationsKHR(d.handle, ei, n, first)
			}
			// enumerate's second call fills in each representation's size;
			// a third, into buffers of those sizes, its data.
			rs, err := enumerate(pn, name, func(r *vkPipelineExecutableInternalRepresentationKHR) { r.sType = stPipelineExecutableInternalReprKHR }, call)
			if err != nil || len(rs) == 0 {
				return err
			}
			bufs := make([][]byte, len(rs))
			for j := range rs {
				if rs[j].dataSize > 0 {
					bufs[j] = make([]byte, rs[j].dataSize)
					rs[j].pData = unsafe.Pointer(pinSlice(pn, bufs[j]))
				}
			}
			m := uint32(len(rs))
			if r := call(&m, pinSlice(pn, rs)); r != vkSuccess && r != vkIncomplete {
				return check(name, r)
			}
			for j, r := range rs[:m] {
				data := bufs[j][:min(int(r.dataSize), len(bufs[j]))]
				if r.isText != 0 {
					data = []byte(gostr(data))
				}
				out = append(out, Representation{Executable: exe, Name: gostr(r.name[:]), Description: gostr(r.description[:]), Text: r.isText != 0, Data: data})
			}
			return nil
		})
	return out, err
}

// eachExecutable runs fn on each executable of the pipeline, under the
// device's lock, after the checks Statistics and InternalRepresentations
// share: a usable device with the extension, a pipeline built with the
// capture (named in the error).
func (p *Pipeline) eachExecutable(what string, captured bool, capture string, fn func(pn *runtime.Pinner, ei *vkPipelineExecutableInfoKHR, exe string) error) error {
	d := p.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	if d.stats == nil {
		return fmt.Errorf("vulkan: device %q does not report %s", d.info.Name, what)
	}
	if !captured {
		return fmt.Errorf("vulkan: %s: the pipeline was built without Device.%s(true)", what, capture)
	}
	var pn runtime.Pinner
	defer pn.Unpin()
	exes, err := p.executables(&pn)
	if err != nil {
		return err
	}
	for k, exe := range exes {
		ei := pin(&pn, &vkPipelineExecutableInfoKHR{sType: stPipelineExecutableInfoKHR, pipeline: p.pipeline, executableIndex: uint32(k)})
		if err := fn(&pn, ei, exe); err != nil {
			return err
		}
	}
	return nil
}

// executables lists the pipeline's executables by name, in index order.
// The caller holds d.mu.
func (p *Pipeline) executables(pn *runtime.Pinner) ([]string, error) {
	d := p.d
	info := pin(pn, &vkPipelineInfoKHR{sType: stPipelineInfoKHR, pipeline: p.pipeline})
	props, err := enumerate(pn, "vkGetPipelineExecutablePropertiesKHR",
		func(x *vkPipelineExecutablePropertiesKHR) { x.sType = stPipelineExecutablePropertiesKHR },
		func(n *uint32, first *vkPipelineExecutablePropertiesKHR) int32 {
			return d.stats.GetPipelineExecutablePropertiesKHR(d.handle, info, n, first)
		})
	if err != nil {
		return nil, err
	}
	names := make([]string, len(props))
	for k := range props {
		names[k] = gostr(props[k].name[:])
	}
	return names, nil
}

// enumerate is Vulkan's two-call query: call(&n, nil) for the count, then
// call(&n, first) into n elements, each prepared by init (its sType);
// VK_INCOMPLETE keeps the n written. name is the entry point, for errors.
func enumerate[T any](pn *runtime.Pinner, name string, init func(*T), call func(n *uint32, first *T) int32) ([]T, error) {
	var n uint32
	if err := check(name, call(&n, nil)); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	xs := make([]T, n)
	for k := range xs {
		init(&xs[k])
	}
	if r := call(&n, pinSlice(pn, xs)); r != vkSuccess && r != vkIncomplete {
		return nil, check(name, r)
	}
	return xs[:n], nil
}

// Statistics returns what the driver reports about each executable of the
// pipeline (a compute pipeline has one). The pipeline must have been built
// after Device.CaptureStatistics(true).
func (p *Pipeline) Statistics() ([]Statistic, error) {
	var out []Statistic
	err := p.eachExecutable("pipeline statistics", p.captured, "CaptureStatistics",
		func(pn *runtime.Pinner, ei *vkPipelineExecutableInfoKHR, exe string) error {
			d := p.d
			st, err := enumerate(pn, "vkGetPipelineExecutableStatisticsKHR",
				func(x *vkPipelineExecutableStatisticKHR) { x.sType = stPipelineExecutableStatisticKHR },
				func(n *uint32, first *vkPipelineExecutableStatisticKHR) int32 {
					return d.stats.GetPipelineExecutableStatisticsKHR(d.handle, ei, n, first)
				})
			if err != nil {
				return err
			}
			for _, s := range st {
				out = append(out, Statistic{Executable: exe, Name: gostr(s.name[:]), Description: gostr(s.description[:]), Value: statValue(s.format, s.value)})
			}
			return nil
		})
	return out, err
}

// StatisticsByName is Statistics as name -> value (a compute pipeline has
// one executable, so the names do not repeat).
func (p *Pipeline) StatisticsByName() (map[string]float64, error) {
	st, err := p.Statistics()
	if err != nil {
		return nil, err
	}
	m := make(map[string]float64, len(st))
	for _, s := range st {
		m[s.Name] = s.Value
	}
	return m, nil
}

// statValue reads the C union VkPipelineExecutableStatisticValueKHR.
func statValue(format uint32, v uint64) float64 {
	switch format {
	case statFormatBool32:
		if uint32(v) != 0 {
			return 1
		}
		return 0
	case statFormatInt64:
		return float64(int64(v))
	case statFormatFloat64:
		return *(*float64)(unsafe.Pointer(&v))
	default: // statFormatUint64
		return float64(v)
	}
}
