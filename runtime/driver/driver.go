// Package driver runs GPU kernels through the vendor driver APIs from pure
// Go (no cgo): libcuda.so.1 (CUDA driver API) or libamdhip64.so (HIP module
// API), loaded with purego. Both symbol sets map into one internal function
// table (syms); everything else (threading, argument packing, bookkeeping,
// timing, errors) is one code path.
//
// A Context owns one OS thread: a dedicated goroutine locks it
// (runtime.LockOSThread), binds the device there (CUDA: the device's primary
// context made current; HIP: hipSetDevice) and runs every driver call of the
// Context, so methods may be called from any goroutine. Calls made from
// inside a Time callback already run on that thread and execute directly.
//
// Kernels and timing events go to a stream the Context creates (Launch,
// Time, TimeGraph): the legacy NULL stream cannot be captured into a graph.
//
// Every driver result is checked: a failure is an *Error such as
// "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (1)".
package driver

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Backend selects the driver API.
type Backend string

// The two backends.
const (
	CUDA Backend = "cuda" // libcuda.so.1, NVIDIA
	HIP  Backend = "hip"  // libamdhip64.so, AMD ROCm
)

// Ptr is a device address (CUdeviceptr / hipDeviceptr_t).
type Ptr uint64

// Info describes the opened device.
type Info struct {
	Backend            Backend
	Ordinal            int    // device index passed to Open
	Name               string // e.g. "NVIDIA H200"
	ComputeUnits       int    // multiprocessors (CUDA SMs, AMD CUs)
	WarpSize           int    // 32 on NVIDIA; 32 or 64 on AMD
	MaxThreadsPerBlock int
	SharedMemPerBlock  int // bytes of static shared memory (LDS) per block
	// DriverVersion as the driver reports it: CUDA 1000*major + 10*minor
	// (13000 is 13.0); HIP major*10^7 + minor*10^5 + patch.
	DriverVersion int
}

// DriverString formats DriverVersion, e.g. "CUDA 13.0" or "HIP 6.2.41133".
func (i Info) DriverString() string {
	v := i.DriverVersion
	if i.Backend == HIP {
		return fmt.Sprintf("HIP %d.%d.%d", v/10000000, v/100000%100, v%100000)
	}
	return fmt.Sprintf("CUDA %d.%d", v/1000, v%1000/10)
}

// Context is an open device. Close it when done.
type Context struct {
	api  *syms
	info Info
	tid  int // the driver thread's id, set before Open returns

	mu     sync.RWMutex // held (read) by calls in flight; Close takes it
	closed atomic.Bool
	reqs   chan request
	exited chan struct{}

	syncLaunches atomic.Bool

	// Owned by the driver thread.
	dev     int32
	allocs  map[Ptr]int
	modules map[*Module]bool
	events  []uintptr
	// stream carries every launch and timing event. It is created with the
	// default flag, i.e. blocking: the legacy NULL stream, where the
	// synchronous copies and memsets of Upload, Download and Memset32 run,
	// waits for its work and it for theirs, so those stay ordered with
	// launches as they were when everything ran on the NULL stream (a
	// non-blocking stream would let Download read before a kernel ended).
	stream uintptr
	// capturing is set while TimeGraph captures its launch callback.
	capturing bool
}

type request struct {
	fn   func() error
	done chan error
}

// Module is a loaded code image.
type Module struct {
	c *Context
	h uintptr
}

// Function is a kernel of a module.
type Function struct {
	m    *Module
	h    uintptr
	name string
}

// Name is the kernel's symbol.
func (f *Function) Name() string { return f.name }

// Open loads the backend's driver library and opens device (an ordinal).
// A missing library is ErrNoDriver with an install hint; no device is
// ErrNoDevice.
func Open(b Backend, device int) (*Context, error) {
	if b != CUDA && b != HIP {
		return nil, fmt.Errorf("driver: unknown backend %q (want %q or %q)", b, CUDA, HIP)
	}
	if !supported {
		return nil, fmt.Errorf("%w: this package drives %s on Linux only", ErrNoDriver, b)
	}
	return openWith(b, device, func() (*syms, error) { return load(b) })
}

// openWith opens a Context whose table comes from load, called on the
// driver thread (tests pass fakes).
func openWith(b Backend, device int, load func() (*syms, error)) (*Context, error) {
	if device < 0 {
		return nil, fmt.Errorf("%w: device %d", ErrNoDevice, device)
	}
	c := &Context{
		info:    Info{Backend: b, Ordinal: device},
		reqs:    make(chan request),
		exited:  make(chan struct{}),
		allocs:  map[Ptr]int{},
		modules: map[*Module]bool{},
	}
	ready := make(chan error, 1)
	go c.loop(device, load, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return c, nil
}

// loop is the driver thread. It stays locked to its OS thread for its whole
// life and is never unlocked: when it returns, the thread exits with it.
func (c *Context) loop(device int, load func() (*syms, error), ready chan<- error) {
	runtime.LockOSThread()
	defer close(c.exited)
	c.tid = gettid()
	api, err := load()
	if err == nil {
		c.api = api
		err = c.start(device)
	}
	if err != nil {
		ready <- err
		return
	}
	ready <- nil
	for r := range c.reqs {
		r.done <- c.safe(r.fn)
	}
	c.shutdown()
}

// safe runs fn, turning a panic into an error so the driver thread survives.
func (c *Context) safe(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("driver: panic on the driver thread: %v", p)
		}
	}()
	return fn()
}

// check turns a driver result into an error naming the entry point.
func (c *Context) check(field string, code int32) error {
	if code == 0 {
		return nil
	}
	return c.api.newError(c.info.Backend, field, code)
}

// start initializes the driver, binds the device to this thread and reads
// its facts.
func (c *Context) start(device int) error {
	b := c.info.Backend
	if err := c.check("Init", c.api.Init(0)); err != nil {
		return err // no device (code 100) matches ErrNoDevice
	}
	var n int32
	if err := c.check("DeviceGetCount", c.api.DeviceGetCount(&n)); err != nil {
		return err
	}
	if device >= int(n) {
		return fmt.Errorf("%w: device %d requested, %s reports %d device(s)", ErrNoDevice, device, b, n)
	}
	if err := c.check("DeviceGet", c.api.DeviceGet(&c.dev, int32(device))); err != nil {
		return err
	}
	if b == CUDA {
		var ctx uintptr
		if err := c.check("PrimaryCtxRetain", c.api.PrimaryCtxRetain(&ctx, c.dev)); err != nil {
			return err
		}
		if err := c.check("CtxSetCurrent", c.api.CtxSetCurrent(ctx)); err != nil {
			c.api.PrimaryCtxRelease(c.dev)
			return err
		}
	} else if err := c.check("SetDevice", c.api.SetDevice(int32(device))); err != nil {
		return err
	}
	err := c.readInfo()
	if err == nil {
		err = c.check("StreamCreate", c.api.StreamCreate(&c.stream, streamDefault))
	}
	if err != nil && b == CUDA {
		c.api.PrimaryCtxRelease(c.dev)
	}
	return err
}

func (c *Context) readInfo() error {
	b := c.info.Backend
	var name [256]byte
	if err := c.check("DeviceGetName", c.api.DeviceGetName(&name[0], int32(len(name)), c.dev)); err != nil {
		return err
	}
	if i := bytes.IndexByte(name[:], 0); i >= 0 {
		c.info.Name = string(name[:i])
	} else {
		c.info.Name = string(name[:])
	}
	ids := attributeIDs[b]
	for _, a := range []struct {
		id  int32
		dst *int
	}{
		{ids.multiprocessors, &c.info.ComputeUnits}, {ids.warp, &c.info.WarpSize},
		{ids.maxThreads, &c.info.MaxThreadsPerBlock}, {ids.sharedMem, &c.info.SharedMemPerBlock},
	} {
		var v int32
		if err := c.check("DeviceGetAttribute", c.api.DeviceGetAttribute(&v, a.id, c.dev)); err != nil {
			return fmt.Errorf("attribute %d: %w", a.id, err)
		}
		*a.dst = int(v)
	}
	var v int32
	if err := c.check("DriverGetVersion", c.api.DriverGetVersion(&v)); err != nil {
		return err
	}
	c.info.DriverVersion = int(v)
	i := c.info
	if (i.WarpSize != 32 && i.WarpSize != 64) || i.MaxThreadsPerBlock < i.WarpSize || i.MaxThreadsPerBlock > 4096 ||
		i.ComputeUnits < 1 || i.SharedMemPerBlock < 1024 {
		return fmt.Errorf("driver: implausible device attributes from %s (warp %d, max threads %d, units %d, shared %d): "+
			"the attribute numbering of this driver differs from the one this package was written for",
			c.api.symbol("DeviceGetAttribute"), i.WarpSize, i.MaxThreadsPerBlock, i.ComputeUnits, i.SharedMemPerBlock)
	}
	return nil
}

// shutdown releases everything the Context still holds (best effort).
func (c *Context) shutdown() {
	for _, ev := range c.events {
		c.api.EventDestroy(ev)
	}
	c.events = nil
	for m := range c.modules {
		c.api.ModuleUnload(m.h)
	}
	c.modules = map[*Module]bool{}
	for p := range c.allocs {
		c.api.MemFree(uint64(p))
	}
	c.allocs = map[Ptr]int{}
	if c.stream != 0 {
		c.api.StreamDestroy(c.stream)
		c.stream = 0
	}
	if c.info.Backend == CUDA {
		c.api.PrimaryCtxRelease(c.dev)
	}
}

// notCapturing refuses op while TimeGraph captures (driver thread): only
// launches can be captured; a copy, memset, allocation or synchronization
// runs on the NULL stream or the host, is not recorded into the graph, and
// would invalidate the capture.
func (c *Context) notCapturing(op string) error {
	if c.capturing {
		return fmt.Errorf("driver: %s inside a TimeGraph launch callback: only launches can be captured into a graph", op)
	}
	return nil
}

// do runs fn on the driver thread and returns its error.
func (c *Context) do(fn func() error) error {
	if c.closed.Load() {
		return ErrClosed
	}
	if gettid() == c.tid { // already on the driver thread (inside Time)
		return c.safe(fn)
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed.Load() {
		return ErrClosed
	}
	done := make(chan error, 1)
	c.reqs <- request{fn: fn, done: done}
	return <-done
}

// Info describes the device.
func (c *Context) Info() Info { return c.info }

// Close frees every allocation, module and event of the Context, releases
// the device and ends the driver thread. It waits for calls in flight; it
// must not be called from inside a Time callback.
func (c *Context) Close() {
	if gettid() == c.tid && !c.closed.Load() {
		panic("driver: Context.Close called on the driver thread (inside a Time callback)")
	}
	c.mu.Lock()
	if c.closed.Swap(true) {
		c.mu.Unlock()
		return
	}
	close(c.reqs)
	c.mu.Unlock()
	<-c.exited
}

// SetSyncLaunches makes every Launch wait for the kernel and report its
// execution errors (a fault then names the kernel that caused it); off by
// default, when execution errors surface at the next synchronizing call.
func (c *Context) SetSyncLaunches(on bool) { c.syncLaunches.Store(on) }

// isBinaryImage reports images the driver takes as they are: ELF (cubin,
// AMD code object), CUDA fatbins and clang offload bundles. Anything else is
// taken for PTX text.
func isBinaryImage(b []byte) bool {
	if bytes.HasPrefix(b, []byte("\x7fELF")) || bytes.HasPrefix(b, []byte("__CLANG_OFFLOAD_BUNDLE__")) ||
		bytes.HasPrefix(b, []byte("CCOB")) {
		return true
	}
	if len(b) >= 4 {
		switch binary.LittleEndian.Uint32(b) {
		case 0xBA55ED50, 0x466243B1: // fatbin, fatbin wrapper
			return true
		}
	}
	return false
}

// LoadModule loads a code image: PTX text (NUL-terminated here when it is
// not already), a cubin or fatbin, or an AMD code object. A PTX that fails
// to JIT carries the JIT's error log when the driver provides one.
func (c *Context) LoadModule(image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, errors.New("driver: LoadModule: empty image")
	}
	img := image
	if !isBinaryImage(image) && image[len(image)-1] != 0 {
		img = make([]byte, len(image)+1)
		copy(img, image)
	}
	m := &Module{c: c}
	err := c.do(func() error {
		code := c.api.ModuleLoadData(&m.h, &img[0])
		if code != 0 {
			err := c.check("ModuleLoadData", code)
			if log := c.jitLog(img); log != "" {
				err = fmt.Errorf("%w; JIT log:\n%s", err, log)
			}
			return err
		}
		c.modules[m] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// jitLog loads img again with an error log buffer and returns the log
// (empty when the driver has no LoadDataEx or writes nothing).
func (c *Context) jitLog(img []byte) string {
	if c.api.ModuleLoadDataEx == nil {
		return ""
	}
	const errorLogBuffer, errorLogBufferSize = 5, 6 // CU_JIT_* and hipJitOption* agree
	log := make([]byte, 16<<10)
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&log[0])
	opts := []int32{errorLogBuffer, errorLogBufferSize}
	vals := []uintptr{uintptr(unsafe.Pointer(&log[0])), uintptr(len(log) - 1)}
	var h uintptr
	if c.api.ModuleLoadDataEx(&h, &img[0], uint32(len(opts)), &opts[0], &vals[0]) == 0 {
		c.api.ModuleUnload(h) // loaded this time after all
		return ""
	}
	if i := bytes.IndexByte(log, 0); i >= 0 {
		log = log[:i]
	}
	return string(bytes.TrimSpace(log))
}

// Unload unloads the module; its Functions must not be launched after.
func (m *Module) Unload() error {
	return m.c.do(func() error {
		if !m.c.modules[m] {
			return errors.New("driver: module already unloaded")
		}
		delete(m.c.modules, m)
		return m.c.check("ModuleUnload", m.c.api.ModuleUnload(m.h))
	})
}

// Function looks a kernel up by its (extern "C") symbol name.
func (m *Module) Function(name string) (*Function, error) {
	f := &Function{m: m, name: name}
	cname := append([]byte(name), 0)
	err := m.c.do(func() error {
		if !m.c.modules[m] {
			return errors.New("driver: module is unloaded")
		}
		return m.c.check("ModuleGetFunction", m.c.api.ModuleGetFunction(&f.h, m.h, &cname[0]))
	})
	if err != nil {
		return nil, fmt.Errorf("kernel %q: %w", name, err)
	}
	return f, nil
}

// Alloc allocates n bytes of device memory.
func (c *Context) Alloc(n int) (Ptr, error) {
	if n <= 0 {
		return 0, fmt.Errorf("driver: Alloc(%d): size must be positive", n)
	}
	var p uint64
	err := c.do(func() error {
		if err := c.notCapturing("Alloc"); err != nil {
			return err
		}
		if err := c.check("MemAlloc", c.api.MemAlloc(&p, uintptr(n))); err != nil {
			return fmt.Errorf("alloc %d bytes: %w", n, err)
		}
		c.allocs[Ptr(p)] = n
		return nil
	})
	return Ptr(p), err
}

// Free frees an allocation made by Alloc.
func (c *Context) Free(p Ptr) error {
	return c.do(func() error {
		if err := c.notCapturing("Free"); err != nil {
			return err
		}
		if _, ok := c.allocs[p]; !ok {
			return fmt.Errorf("driver: Free(%#x): not an allocation of this context", uint64(p))
		}
		delete(c.allocs, p)
		return c.check("MemFree", c.api.MemFree(uint64(p)))
	})
}

// inside checks that [p, p+n) lies in one allocation (driver thread only).
func (c *Context) inside(p Ptr, n int) error {
	for base, size := range c.allocs {
		if p >= base && uint64(p)+uint64(n) <= uint64(base)+uint64(size) {
			return nil
		}
	}
	return fmt.Errorf("driver: %d bytes at %#x are outside every allocation of this context", n, uint64(p))
}

// Upload copies src to device memory at dst.
func (c *Context) Upload(dst Ptr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return c.do(func() error {
		if err := c.notCapturing("Upload"); err != nil {
			return err
		}
		if err := c.inside(dst, len(src)); err != nil {
			return err
		}
		return c.check("MemcpyHtoD", c.api.MemcpyHtoD(uint64(dst), &src[0], uintptr(len(src))))
	})
}

// Download copies len(dst) bytes of device memory at src to dst. It waits
// for work queued before it, so it also reports errors of kernels run since.
func (c *Context) Download(dst []byte, src Ptr) error {
	if len(dst) == 0 {
		return nil
	}
	return c.do(func() error {
		if err := c.notCapturing("Download"); err != nil {
			return err
		}
		if err := c.inside(src, len(dst)); err != nil {
			return err
		}
		return c.check("MemcpyDtoH", c.api.MemcpyDtoH(&dst[0], uint64(src), uintptr(len(dst))))
	})
}

// Memset32 sets count 32-bit words at p to value.
func (c *Context) Memset32(p Ptr, value uint32, count int) error {
	if count <= 0 {
		return nil
	}
	return c.do(func() error {
		if err := c.notCapturing("Memset32"); err != nil {
			return err
		}
		if err := c.inside(p, 4*count); err != nil {
			return err
		}
		return c.check("MemsetD32", c.api.MemsetD32(uint64(p), value, uintptr(count)))
	})
}

// Launch launches f on the Context's stream with grid blocks of block
// threads and shared bytes of dynamic shared memory. args are the kernel's
// parameters in order: Ptr, int32, uint32 or float32, matching the kernel's
// C types (pointer, int, unsigned, float). The launch error is checked; with
// SetSyncLaunches(true) the kernel's execution is too, except inside a
// TimeGraph capture, where the launch is recorded, not run.
func (c *Context) Launch(f *Function, grid, block [3]uint32, shared uint32, args ...any) error {
	if f == nil || f.m == nil || f.m.c != c {
		return errors.New("driver: Launch: function is nil or from another context")
	}
	for i := 0; i < 3; i++ {
		if grid[i] == 0 || block[i] == 0 {
			return fmt.Errorf("driver: launch %s: grid %v block %v has a zero dimension", f.name, grid, block)
		}
	}
	p, err := packParams(args)
	if err != nil {
		return fmt.Errorf("driver: launch %s: %w", f.name, err)
	}
	return c.do(func() error {
		if !c.modules[f.m] {
			return fmt.Errorf("driver: launch %s: its module is unloaded", f.name)
		}
		var pin runtime.Pinner
		defer pin.Unpin()
		kp := p.pin(&pin)
		code := c.api.LaunchKernel(f.h, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, c.stream, kp, nil)
		if err := c.check("LaunchKernel", code); err != nil {
			return fmt.Errorf("launch %s grid %v block %v: %w", f.name, grid, block, err)
		}
		if c.syncLaunches.Load() && !c.capturing {
			if err := c.check("Synchronize", c.api.Synchronize()); err != nil {
				return fmt.Errorf("after launch %s grid %v block %v: %w", f.name, grid, block, err)
			}
		}
		return nil
	})
}

// Sync waits for all work of the device and reports execution errors.
func (c *Context) Sync() error {
	return c.do(func() error {
		if err := c.notCapturing("Sync"); err != nil {
			return err
		}
		return c.check("Synchronize", c.api.Synchronize())
	})
}

// eventPool returns n events, creating more as needed (driver thread).
func (c *Context) eventPool(n int) ([]uintptr, error) {
	for len(c.events) < n {
		var ev uintptr
		if err := c.check("EventCreate", c.api.EventCreate(&ev, 0)); err != nil {
			return nil, err
		}
		c.events = append(c.events, ev)
	}
	return c.events[:n], nil
}

// Time runs fn reps times on the driver thread with an event recorded on
// the Context's stream before and after each run, and returns each run's GPU
// time in microseconds. fn typically calls Launch; calls it makes on this
// Context run directly on the driver thread (fn must not hand them to other
// goroutines, nor call Close). Time and TimeGraph return the same unit, so a
// caller can switch between them.
func (c *Context) Time(reps int, fn func() error) ([]float64, error) {
	if reps < 1 {
		return nil, fmt.Errorf("driver: Time(%d): reps must be positive", reps)
	}
	out := make([]float64, reps)
	err := c.do(func() error {
		if err := c.notCapturing("Time"); err != nil {
			return err
		}
		return c.timeRuns(out, func(i int) error {
			if err := fn(); err != nil {
				return fmt.Errorf("timed run %d: %w", i, err)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// timeRuns calls run(i) for each i < len(out) between two events recorded
// on the Context's stream and stores each run's GPU time in microseconds
// (driver thread).
func (c *Context) timeRuns(out []float64, run func(i int) error) error {
	reps := len(out)
	evs, err := c.eventPool(2 * reps)
	if err != nil {
		return err
	}
	for i := 0; i < reps; i++ {
		if err := c.check("EventRecord", c.api.EventRecord(evs[2*i], c.stream)); err != nil {
			return err
		}
		if err := run(i); err != nil {
			return err
		}
		if err := c.check("EventRecord", c.api.EventRecord(evs[2*i+1], c.stream)); err != nil {
			return err
		}
	}
	if err := c.check("EventSynchronize", c.api.EventSynchronize(evs[2*reps-1])); err != nil {
		return err
	}
	for i := range out {
		var ms float32
		if err := c.check("EventElapsedTime", c.api.EventElapsedTime(&ms, evs[2*i], evs[2*i+1])); err != nil {
			return err
		}
		out[i] = float64(ms) * 1000
	}
	return nil
}

// graphWarmup is how many times TimeGraph replays its graph before the
// timed replays (the first replay also uploads the graph to the device).
const graphWarmup = 3

// TimeGraph times fn the way serving engines run decode: it captures one
// call of fn into a graph (stream capture on the Context's stream),
// instantiates it, replays it graphWarmup times, then reps times with an
// event recorded on the stream before and after each replay, and returns
// each replay's GPU time in microseconds, like Time. The launches inside a
// replay follow each other with no host in between, so their launch gaps
// are the device's, not this package's.
//
// fn runs once, on the driver thread, and may only call Launch: its
// launches are recorded, not run, so copies, memsets, allocations,
// synchronization and timing are refused during it.
//
// The capture mode is thread-local (CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
// hipStreamCaptureModeThreadLocal = 1). Relaxed mode would let an unsafe
// call on the capturing thread (an allocation, a synchronous copy) go
// through while its effect is missing from the graph; thread-local makes it
// fail and invalidate the capture, so a bad graph is never timed. Global
// mode would add the same restriction to every other thread of the process
// (another Context, a library) for no gain: this Context's calls all come
// from its one driver thread, which also ends the capture, as every mode
// but relaxed requires.
//
// Whatever fails (fn, ending the capture, instantiation, a replay), the
// capture is ended, the graph and its executable instance are destroyed
// once, and the stream stays usable for the next Launch, Time or
// TimeGraph.
func (c *Context) TimeGraph(reps int, fn func() error) ([]float64, error) {
	if reps < 1 {
		return nil, fmt.Errorf("driver: TimeGraph(%d): reps must be positive", reps)
	}
	out := make([]float64, reps)
	err := c.do(func() (err error) {
		if err := c.notCapturing("TimeGraph"); err != nil {
			return err
		}
		if missing := c.api.missingGraph(); len(missing) > 0 {
			return fmt.Errorf("driver: TimeGraph: the %s driver lacks %s (graph capture and replay); time eager launches (Time) instead",
				c.info.Backend, strings.Join(missing, ", "))
		}
		graph, err := c.capture(fn)
		if err != nil {
			return err
		}
		defer func() {
			if derr := c.check("GraphDestroy", c.api.GraphDestroy(graph)); derr != nil && err == nil {
				err = derr
			}
		}()
		var exec uintptr
		if err := c.check("GraphInstantiate", c.api.GraphInstantiate(&exec, graph, 0)); err != nil {
			return fmt.Errorf("instantiate the captured graph: %w", err)
		}
		defer func() {
			if derr := c.check("GraphExecDestroy", c.api.GraphExecDestroy(exec)); derr != nil && err == nil {
				err = derr
			}
		}()
		for i := 0; i < graphWarmup; i++ {
			if err := c.check("GraphLaunch", c.api.GraphLaunch(exec, c.stream)); err != nil {
				return fmt.Errorf("warm-up replay %d: %w", i, err)
			}
		}
		return c.timeRuns(out, func(i int) error {
			if err := c.check("GraphLaunch", c.api.GraphLaunch(exec, c.stream)); err != nil {
				return fmt.Errorf("timed replay %d: %w", i, err)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// capture records fn's launches on the Context's stream into a graph
// (driver thread). The capture is ended on every path, a failing or
// panicking fn included, so the stream never stays in capture mode; on an
// error no graph is left behind.
func (c *Context) capture(fn func() error) (uintptr, error) {
	if err := c.check("StreamBeginCapture", c.api.StreamBeginCapture(c.stream, captureModeThreadLocal)); err != nil {
		return 0, err
	}
	c.capturing = true
	ferr := c.safe(fn)
	c.capturing = false
	var graph uintptr
	code := c.api.StreamEndCapture(c.stream, &graph)
	if code != 0 {
		// The driver returns no graph when ending fails (NULL for an
		// invalidated capture): there is nothing to destroy.
		err := c.check("StreamEndCapture", code)
		if ferr != nil {
			return 0, fmt.Errorf("captured run: %w (and then %v)", ferr, err)
		}
		return 0, err
	}
	if ferr != nil {
		if graph != 0 {
			c.api.GraphDestroy(graph)
		}
		return 0, fmt.Errorf("captured run: %w", ferr)
	}
	if graph == 0 {
		return 0, fmt.Errorf("driver: %s succeeded without a graph", c.api.symbol("StreamEndCapture"))
	}
	return graph, nil
}
