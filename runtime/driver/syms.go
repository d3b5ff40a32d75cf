package driver

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// syms is the one internal function table both backends are mapped into.
// Field names are backend-neutral; each field's struct tags name the entry
// point bound to it in libcuda (tag cuda) and libamdhip64 (tag hip). A field
// with no tag for a backend stays nil there; opt:"1" marks entry points a
// library may lack (they are used when present). The signatures are the C
// ones with CUdeviceptr/hipDeviceptr_t as uint64, handles as uintptr and
// enums and ints as int32/uint32; where CUDA and HIP differ only in names,
// the types are identical, so everything past binding is shared code.
//
// Tests replace the whole table with Go fakes (see openWith).
type syms struct {
	Init               func(flags uint32) int32                                                                                                     `cuda:"cuInit" hip:"hipInit"`
	DeviceGetCount     func(n *int32) int32                                                                                                         `cuda:"cuDeviceGetCount" hip:"hipGetDeviceCount"`
	DeviceGet          func(dev *int32, ordinal int32) int32                                                                                        `cuda:"cuDeviceGet" hip:"hipDeviceGet"`
	DeviceGetName      func(name *byte, n int32, dev int32) int32                                                                                   `cuda:"cuDeviceGetName" hip:"hipDeviceGetName"`
	DeviceGetAttribute func(v *int32, attr int32, dev int32) int32                                                                                  `cuda:"cuDeviceGetAttribute" hip:"hipDeviceGetAttribute"`
	DriverGetVersion   func(v *int32) int32                                                                                                         `cuda:"cuDriverGetVersion" hip:"hipDriverGetVersion"`
	ModuleLoadData     func(mod *uintptr, image *byte) int32                                                                                        `cuda:"cuModuleLoadData" hip:"hipModuleLoadData"`
	ModuleLoadDataEx   func(mod *uintptr, image *byte, n uint32, opts *int32, vals *uintptr) int32                                                  `cuda:"cuModuleLoadDataEx" hip:"hipModuleLoadDataEx" opt:"1"`
	ModuleUnload       func(mod uintptr) int32                                                                                                      `cuda:"cuModuleUnload" hip:"hipModuleUnload"`
	ModuleGetFunction  func(fn *uintptr, mod uintptr, name *byte) int32                                                                             `cuda:"cuModuleGetFunction" hip:"hipModuleGetFunction"`
	MemAlloc           func(p *uint64, n uintptr) int32                                                                                             `cuda:"cuMemAlloc_v2" hip:"hipMalloc"`
	MemFree            func(p uint64) int32                                                                                                         `cuda:"cuMemFree_v2" hip:"hipFree"`
	MemcpyHtoD         func(dst uint64, src *byte, n uintptr) int32                                                                                 `cuda:"cuMemcpyHtoD_v2" hip:"hipMemcpyHtoD"`
	MemcpyDtoH         func(dst *byte, src uint64, n uintptr) int32                                                                                 `cuda:"cuMemcpyDtoH_v2" hip:"hipMemcpyDtoH"`
	MemsetD32          func(dst uint64, v uint32, n uintptr) int32                                                                                  `cuda:"cuMemsetD32_v2" hip:"hipMemsetD32"`
	LaunchKernel       func(fn uintptr, gx, gy, gz, bx, by, bz, shared uint32, stream uintptr, params *unsafe.Pointer, extra *unsafe.Pointer) int32 `cuda:"cuLaunchKernel" hip:"hipModuleLaunchKernel"`
	Synchronize        func() int32                                                                                                                 `cuda:"cuCtxSynchronize" hip:"hipDeviceSynchronize"`
	// hipEventCreateWithFlags has cuEventCreate's signature (plain
	// hipEventCreate lacks the flags); flags 0 is the default event on both.
	EventCreate      func(ev *uintptr, flags uint32) int32       `cuda:"cuEventCreate" hip:"hipEventCreateWithFlags"`
	EventRecord      func(ev uintptr, stream uintptr) int32      `cuda:"cuEventRecord" hip:"hipEventRecord"`
	EventSynchronize func(ev uintptr) int32                      `cuda:"cuEventSynchronize" hip:"hipEventSynchronize"`
	EventElapsedTime func(ms *float32, start, end uintptr) int32 `cuda:"cuEventElapsedTime" hip:"hipEventElapsedTime"`
	EventDestroy     func(ev uintptr) int32                      `cuda:"cuEventDestroy_v2" hip:"hipEventDestroy"`
	// The Context's stream (see Context.stream for why it exists and why it
	// is a blocking stream). cuda.h: cuStreamCreate(CUstream *phStream,
	// unsigned int Flags), cuStreamDestroy is #defined to cuStreamDestroy_v2
	// (CUstream); hip_runtime_api.h: hipStreamCreateWithFlags(hipStream_t*,
	// unsigned int), hipStreamDestroy(hipStream_t).
	StreamCreate  func(stream *uintptr, flags uint32) int32 `cuda:"cuStreamCreate" hip:"hipStreamCreateWithFlags"`
	StreamDestroy func(stream uintptr) int32                `cuda:"cuStreamDestroy_v2" hip:"hipStreamDestroy"`
	// Graph capture and replay (TimeGraph). Optional: without them a driver
	// still runs eager launches, and TimeGraph names what is missing.
	// cuda.h #defines cuStreamBeginCapture to cuStreamBeginCapture_v2
	// (CUstream, CUstreamCaptureMode) (the unversioned symbol is CUDA 10.0's,
	// without the mode); cuStreamEndCapture(CUstream, CUgraph*);
	// cuGraphInstantiateWithFlags(CUgraphExec*, CUgraph, unsigned long long);
	// cuGraphLaunch(CUgraphExec, CUstream); cuGraphExecDestroy(CUgraphExec);
	// cuGraphDestroy(CUgraph). The hip* entry points have the same shapes.
	StreamBeginCapture func(stream uintptr, mode int32) int32                 `cuda:"cuStreamBeginCapture_v2" hip:"hipStreamBeginCapture" opt:"1"`
	StreamEndCapture   func(stream uintptr, graph *uintptr) int32             `cuda:"cuStreamEndCapture" hip:"hipStreamEndCapture" opt:"1"`
	GraphInstantiate   func(exec *uintptr, graph uintptr, flags uint64) int32 `cuda:"cuGraphInstantiateWithFlags" hip:"hipGraphInstantiateWithFlags" opt:"1"`
	GraphLaunch        func(exec uintptr, stream uintptr) int32               `cuda:"cuGraphLaunch" hip:"hipGraphLaunch" opt:"1"`
	GraphExecDestroy   func(exec uintptr) int32                               `cuda:"cuGraphExecDestroy" hip:"hipGraphExecDestroy" opt:"1"`
	GraphDestroy       func(graph uintptr) int32                              `cuda:"cuGraphDestroy" hip:"hipGraphDestroy" opt:"1"`
	// Binding the device to the driver thread: CUDA retains the device's
	// primary context and makes it current; HIP selects the device.
	PrimaryCtxRetain  func(ctx *uintptr, dev int32) int32 `cuda:"cuDevicePrimaryCtxRetain"`
	PrimaryCtxRelease func(dev int32) int32               `cuda:"cuDevicePrimaryCtxRelease_v2"`
	CtxSetCurrent     func(ctx uintptr) int32             `cuda:"cuCtxSetCurrent"`
	SetDevice         func(dev int32) int32               `hip:"hipSetDevice"`
	// Error names: the two APIs differ in shape.
	CuGetErrorName  func(code int32, name **byte) int32 `cuda:"cuGetErrorName" opt:"1"`
	HipGetErrorName func(code int32) string             `hip:"hipGetErrorName" opt:"1"`

	// names maps a field name to the entry point bound to it, for errors.
	names map[string]string
}

// symbol is the entry point name behind a field of the table.
func (s *syms) symbol(field string) string {
	if n, ok := s.names[field]; ok {
		return n
	}
	return field
}

// symbolNames lists field -> entry point for a backend, from the tags.
func symbolNames(b Backend) map[string]string {
	t := reflect.TypeOf(syms{})
	m := map[string]string{}
	for i := 0; i < t.NumField(); i++ {
		if n := t.Field(i).Tag.Get(string(b)); n != "" {
			m[t.Field(i).Name] = n
		}
	}
	return m
}

// graphFields are the table fields TimeGraph needs.
var graphFields = []string{"StreamBeginCapture", "StreamEndCapture", "GraphInstantiate", "GraphLaunch", "GraphExecDestroy", "GraphDestroy"}

// missingGraph lists the entry points of graphFields the library lacks.
func (s *syms) missingGraph() []string {
	v := reflect.ValueOf(s).Elem()
	var missing []string
	for _, f := range graphFields {
		if v.FieldByName(f).IsNil() {
			missing = append(missing, s.symbol(f))
		}
	}
	return missing
}

// Stream creation flags and capture modes. cuda.h: CU_STREAM_DEFAULT = 0x0
// (CUstream_flags); CUstreamCaptureMode: CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
// _THREAD_LOCAL = 1, _RELAXED = 2. hip_runtime_api.h: hipStreamDefault =
// 0x00; hipStreamCaptureModeGlobal = 0, ThreadLocal = 1, Relaxed = 2.
const (
	streamDefault          = 0
	captureModeThreadLocal = 1
)

// Attribute ids of the four device facts Info reports. CUDA: CUdevice_attribute.
// HIP: hipDeviceAttribute_t, whose CUDA-compatible range has kept these
// numbers since ROCm 5 (retired entries became placeholders); Open checks
// the values it gets for plausibility, since a shifted enum would return a
// different attribute rather than fail.
type attrs struct{ maxThreads, sharedMem, warp, multiprocessors int32 }

var attributeIDs = map[Backend]attrs{
	CUDA: {maxThreads: 1, sharedMem: 8, warp: 10, multiprocessors: 16},
	HIP:  {maxThreads: 56, sharedMem: 74, warp: 87, multiprocessors: 63},
}

// Libraries are the sonames tried in order for each backend. Tests replace
// an entry to simulate an absent driver deterministically.
var Libraries = map[Backend][]string{
	CUDA: {"libcuda.so.1"},
	HIP:  {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"},
}

var installHints = map[Backend]string{
	CUDA: "install the NVIDIA driver (libcuda.so.1): the nvidia-driver / libcuda1 package of your distribution " +
		"or NVIDIA's driver installer; in a container, start it with the NVIDIA container toolkit (--gpus all)",
	HIP: "install ROCm (libamdhip64.so): apt/ROCm install, e.g. apt-get install rocm-hip-runtime from AMD's ROCm " +
		"repository (Debian: libamdhip64-5), and put /opt/rocm/lib on the loader path (ldconfig or LD_LIBRARY_PATH)",
}

var loaded struct {
	sync.Mutex
	byName map[string]*syms // backend + "/" + soname; libraries are never closed
}

// load dlopens the backend's library (once per soname) and binds the table.
func load(b Backend) (*syms, error) {
	loaded.Lock()
	defer loaded.Unlock()
	names := Libraries[b]
	var reasons []string
	for _, name := range names {
		key := string(b) + "/" + name
		if s := loaded.byName[key]; s != nil {
			return s, nil
		}
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err != nil {
			reasons = append(reasons, err.Error())
			continue
		}
		s, err := bind(b, func(sym string) uintptr {
			p, err := purego.Dlsym(h, sym)
			if err != nil {
				return 0
			}
			return p
		})
		if err != nil {
			// A library that lacks required entry points is not a driver
			// this code can use: report it like an absent one, with the why.
			reasons = append(reasons, name+": "+err.Error())
			continue
		}
		if loaded.byName == nil {
			loaded.byName = map[string]*syms{}
		}
		loaded.byName[key] = s
		return s, nil
	}
	if len(names) == 0 {
		reasons = append(reasons, "no library names configured")
	}
	return nil, fmt.Errorf("%w: cannot load %s (%s); %s", ErrNoDriver, strings.Join(names, " or "),
		strings.Join(reasons, "; "), installHints[b])
}

// bind fills every field tagged for b from resolve(symbol), failing with the
// list of required entry points the library does not export.
func bind(b Backend, resolve func(symbol string) uintptr) (*syms, error) {
	s := &syms{names: symbolNames(b)}
	v := reflect.ValueOf(s).Elem()
	t := v.Type()
	var missing []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := f.Tag.Get(string(b))
		if name == "" || f.Type.Kind() != reflect.Func {
			continue
		}
		p := resolve(name)
		if p == 0 {
			if f.Tag.Get("opt") == "" {
				missing = append(missing, name)
			}
			continue
		}
		purego.RegisterFunc(v.Field(i).Addr().Interface(), p)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing entry points %s", strings.Join(missing, ", "))
	}
	return s, nil
}
