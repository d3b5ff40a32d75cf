package driver

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// FakeKernel emulates a kernel for the fake driver: args are the launch's
// kernelParams pointers (as the real driver receives them) and mem maps a
// device range to its backing bytes (nil when outside every allocation).
// It returns a driver result code (0: success).
type FakeKernel func(grid, block [3]uint32, args []unsafe.Pointer, mem func(p Ptr, n int) []byte) int32

// fakeDriver is a Go implementation of the function table: device memory
// is Go memory, modules are lists of kernel names, events read a clock that
// each launch advances by 0.5 ms. It records which OS thread every call
// came from, so tests can check that all calls ran on the driver thread.
//
// It knows only the streams it created: launches and events on the NULL
// stream fail (400), so everything must go to the Context's stream. A
// launch on a capturing stream is recorded (its kernel parameters copied,
// as the real driver does) instead of run; a graph replay runs the recorded
// launches in order. Capture, graph and stream calls are appended to
// graphLog, so tests can check their order and pairing.
type fakeDriver struct {
	backend Backend
	kernels map[string]FakeKernel
	arity   map[string]int

	// Knobs set before Open.
	initCode  int32
	devices   int32
	warp      int32
	nameFunc  bool // provide the driver's error-name entry point
	syncFault int32
	noGraph   bool  // leave the graph entry points out, like an old driver
	instCode  int32 // GraphInstantiate's result
	endCode   int32 // StreamEndCapture's result (901: the capture was invalidated)

	tid       atomic.Int64
	offThread atomic.Int32
	calls     atomic.Int32

	mu        sync.Mutex
	mem       map[uint64][]byte
	next      uint64
	modules   map[uintptr][]string
	funcs     []string
	events    map[uintptr]float32
	nextEvent uintptr
	clock     float32
	retained  int
	released  int
	current   uintptr
	setDevice int32
	launches  int
	images    []string
	pending   int32 // execution error reported at the next sync

	// Streams and graphs.
	nextHandle    uintptr
	streams       map[uintptr]uint32 // stream -> creation flags
	capturing     uintptr            // the stream in capture, 0 when none
	captureMode   int32
	invalidated   bool       // an unsafe call was made during the capture
	recorded      []fakeNode // launches of the capture in progress
	graphs        map[uintptr][]fakeNode
	execs         map[uintptr][]fakeNode
	graphLaunches int
	graphLog      []string
}

// fakeNode is a recorded launch: it runs the kernel and returns its code.
type fakeNode func() int32

func newFake(b Backend) *fakeDriver {
	return &fakeDriver{
		backend: b, kernels: map[string]FakeKernel{}, arity: map[string]int{}, devices: 1, warp: 32, nameFunc: true,
		mem: map[uint64][]byte{}, next: 0x7f0000000000, modules: map[uintptr][]string{},
		events: map[uintptr]float32{}, nextEvent: 0x100, setDevice: -1, syncFault: 700,
		nextHandle: 0x5000, streams: map[uintptr]uint32{}, graphs: map[uintptr][]fakeNode{}, execs: map[uintptr][]fakeNode{},
	}
}

// on records the calling thread; the first call (Init) fixes it.
func (f *fakeDriver) on() {
	f.calls.Add(1)
	tid := int64(gettid())
	if f.tid.CompareAndSwap(0, tid) {
		return
	}
	if f.tid.Load() != tid {
		f.offThread.Add(1)
	}
}

// unsafeCall emulates a call that stream capture forbids (locked by the
// caller): during a capture it fails and invalidates the capture.
func (f *fakeDriver) unsafeCall() int32 {
	if f.capturing != 0 {
		f.invalidated = true
		return 900
	}
	return 0
}

// handle returns a fresh handle (locked by the caller).
func (f *fakeDriver) handle() uintptr {
	f.nextHandle += 0x10
	return f.nextHandle
}

// logf appends to graphLog (locked by the caller).
func (f *fakeDriver) logf(format string, args ...any) {
	f.graphLog = append(f.graphLog, fmt.Sprintf(format, args...))
}

// region returns the bytes of [p, p+n) or nil (locked by the caller).
func (f *fakeDriver) region(p uint64, n int) []byte {
	for base, b := range f.mem {
		if p >= base && p+uint64(n) <= base+uint64(len(b)) {
			return b[p-base : p-base+uint64(n)]
		}
	}
	return nil
}

var errNameBufs = map[int32][]byte{}
var errNameMu sync.Mutex

func (f *fakeDriver) table() *syms {
	s := &syms{names: symbolNames(f.backend)}
	s.Init = func(flags uint32) int32 { f.on(); return f.initCode }
	s.DeviceGetCount = func(n *int32) int32 { f.on(); *n = f.devices; return 0 }
	s.DeviceGet = func(dev *int32, ordinal int32) int32 {
		f.on()
		if ordinal >= f.devices {
			return 101
		}
		*dev = ordinal
		return 0
	}
	s.DeviceGetName = func(name *byte, n int32, dev int32) int32 {
		f.on()
		copy(unsafe.Slice(name, n), "Fake GPU "+string(f.backend)+"\x00")
		return 0
	}
	ids := attributeIDs[f.backend]
	s.DeviceGetAttribute = func(v *int32, attr int32, dev int32) int32 {
		f.on()
		switch attr {
		case ids.maxThreads:
			*v = 1024
		case ids.sharedMem:
			*v = 49152
		case ids.warp:
			*v = f.warp
		case ids.multiprocessors:
			*v = 132
		default:
			return 1
		}
		return 0
	}
	s.DriverGetVersion = func(v *int32) int32 { f.on(); *v = 13000; return 0 }
	s.ModuleLoadData = func(mod *uintptr, image *byte) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		text := gostring(image)
		f.images = append(f.images, text)
		if strings.Contains(text, "bad") {
			return 218
		}
		h := uintptr(len(f.images)) << 8
		f.modules[h] = strings.Fields(text)
		*mod = h
		return 0
	}
	s.ModuleLoadDataEx = func(mod *uintptr, image *byte, n uint32, opts *int32, vals *uintptr) int32 {
		f.on()
		o := unsafe.Slice(opts, n)
		if n != 2 || o[0] != 5 || o[1] != 6 {
			return 1
		}
		v := unsafe.Slice(vals, n)
		logp := *(**byte)(unsafe.Pointer(vals)) // vals[0] holds the log buffer's address
		copy(unsafe.Slice(logp, v[1]), "ptxas fatal: line 1: bad token\x00")
		return 218
	}
	s.ModuleUnload = func(mod uintptr) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.modules[mod]; !ok {
			return 400
		}
		delete(f.modules, mod)
		return 0
	}
	s.ModuleGetFunction = func(fn *uintptr, mod uintptr, name *byte) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		n := gostring(name)
		for _, k := range f.modules[mod] {
			if k == n {
				f.funcs = append(f.funcs, n)
				*fn = uintptr(len(f.funcs))
				return 0
			}
		}
		return 500
	}
	s.MemAlloc = func(p *uint64, n uintptr) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		if n > 1<<30 {
			return 2
		}
		*p = f.next
		f.mem[f.next] = make([]byte, n)
		f.next += (uint64(n) + 511) &^ 255
		return 0
	}
	s.MemFree = func(p uint64) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.mem[p]; !ok {
			return 1
		}
		delete(f.mem, p)
		return 0
	}
	s.MemcpyHtoD = func(dst uint64, src *byte, n uintptr) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		r := f.region(dst, int(n))
		if r == nil {
			return 1
		}
		copy(r, unsafe.Slice(src, n))
		return 0
	}
	s.MemcpyDtoH = func(dst *byte, src uint64, n uintptr) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		r := f.region(src, int(n))
		if r == nil {
			return 1
		}
		if f.pending != 0 {
			return f.pending
		}
		copy(unsafe.Slice(dst, n), r)
		return 0
	}
	s.MemsetD32 = func(dst uint64, v uint32, n uintptr) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		if code := f.unsafeCall(); code != 0 {
			return code
		}
		r := f.region(dst, 4*int(n))
		if r == nil {
			return 1
		}
		for i := 0; i < int(n); i++ {
			*(*uint32)(unsafe.Pointer(&r[4*i])) = v
		}
		return 0
	}
	s.LaunchKernel = func(fn uintptr, gx, gy, gz, bx, by, bz, shared uint32, stream uintptr, params *unsafe.Pointer, extra *unsafe.Pointer) int32 {
		f.on()
		f.mu.Lock()
		if fn == 0 || int(fn) > len(f.funcs) {
			f.mu.Unlock()
			return 400
		}
		if _, ok := f.streams[stream]; !ok {
			f.mu.Unlock()
			return 400
		}
		name := f.funcs[fn-1]
		k, nargs := f.kernels[name], f.arity[name]
		f.mu.Unlock()
		if bx*by*bz > 1024 || extra != nil {
			return 1
		}
		var args []unsafe.Pointer
		if params != nil {
			// Copy the parameters (8-byte slots, see kernelParams), as the
			// driver does at launch: a recorded launch replays these values.
			slots := make([]uint64, nargs)
			args = make([]unsafe.Pointer, nargs)
			for i, p := range unsafe.Slice(params, nargs) {
				slots[i] = *(*uint64)(p)
				args[i] = unsafe.Pointer(&slots[i])
			}
		} else if nargs != 0 {
			return 1
		}
		grid, block := [3]uint32{gx, gy, gz}, [3]uint32{bx, by, bz}
		run := func() int32 {
			if name == "trap" {
				f.mu.Lock()
				f.pending = f.syncFault
				f.mu.Unlock()
				return 0
			}
			if k == nil {
				return 98
			}
			mem := func(p Ptr, n int) []byte {
				f.mu.Lock()
				defer f.mu.Unlock()
				return f.region(uint64(p), n)
			}
			code := k(grid, block, args, mem)
			f.mu.Lock()
			f.launches++
			f.clock += 0.5
			f.mu.Unlock()
			return code
		}
		f.mu.Lock()
		if f.capturing == stream {
			f.recorded = append(f.recorded, run)
			f.logf("record %s", name)
			f.mu.Unlock()
			return 0
		}
		f.mu.Unlock()
		return run()
	}
	s.Synchronize = func() int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		if code := f.unsafeCall(); code != 0 {
			return code
		}
		return f.pending
	}
	s.EventCreate = func(ev *uintptr, flags uint32) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.nextEvent++
		f.events[f.nextEvent] = -1
		*ev = f.nextEvent
		return 0
	}
	s.EventRecord = func(ev uintptr, stream uintptr) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.events[ev]; !ok {
			return 400
		}
		if _, ok := f.streams[stream]; !ok {
			return 400
		}
		if stream == f.capturing {
			return 900 // the fake does not capture events
		}
		f.events[ev] = f.clock
		return 0
	}
	s.EventSynchronize = func(ev uintptr) int32 { f.on(); return 0 }
	s.EventElapsedTime = func(ms *float32, start, end uintptr) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		a, b := f.events[start], f.events[end]
		if a < 0 || b < 0 {
			return 600
		}
		*ms = b - a
		return 0
	}
	s.EventDestroy = func(ev uintptr) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.events, ev)
		return 0
	}
	s.StreamCreate = func(stream *uintptr, flags uint32) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		h := f.handle()
		f.streams[h] = flags
		f.logf("stream-create")
		*stream = h
		return 0
	}
	s.StreamDestroy = func(stream uintptr) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.logf("stream-destroy")
		if _, ok := f.streams[stream]; !ok || stream == f.capturing {
			return 400
		}
		delete(f.streams, stream)
		return 0
	}
	if !f.noGraph {
		f.graphTable(s)
	}
	if f.backend == CUDA {
		s.PrimaryCtxRetain = func(ctx *uintptr, dev int32) int32 {
			f.on()
			f.mu.Lock()
			defer f.mu.Unlock()
			f.retained++
			*ctx = 0xc0
			return 0
		}
		s.PrimaryCtxRelease = func(dev int32) int32 { f.on(); f.mu.Lock(); f.released++; f.mu.Unlock(); return 0 }
		s.CtxSetCurrent = func(ctx uintptr) int32 { f.on(); f.mu.Lock(); f.current = ctx; f.mu.Unlock(); return 0 }
		if f.nameFunc {
			s.CuGetErrorName = func(code int32, name **byte) int32 {
				n, ok := cudaErrorNames[int(code)]
				if !ok {
					return 1
				}
				errNameMu.Lock()
				defer errNameMu.Unlock()
				if errNameBufs[code] == nil {
					errNameBufs[code] = append([]byte("drv:"+n), 0)
				}
				*name = &errNameBufs[code][0]
				return 0
			}
		}
	} else {
		s.SetDevice = func(dev int32) int32 { f.on(); f.mu.Lock(); f.setDevice = dev; f.mu.Unlock(); return 0 }
		if f.nameFunc {
			s.HipGetErrorName = func(code int32) string {
				if n, ok := hipErrorNames[int(code)]; ok {
					return "drv:" + n
				}
				return "hipErrorUnknown"
			}
		}
	}
	return s
}

// graphTable fills the capture and graph entry points.
func (f *fakeDriver) graphTable(s *syms) {
	s.StreamBeginCapture = func(stream uintptr, mode int32) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.logf("begin")
		if _, ok := f.streams[stream]; !ok {
			return 400 // the NULL stream among them: it cannot be captured
		}
		if f.capturing != 0 {
			return 401
		}
		f.capturing, f.captureMode, f.invalidated, f.recorded = stream, mode, false, nil
		return 0
	}
	s.StreamEndCapture = func(stream uintptr, graph *uintptr) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.logf("end")
		if f.capturing == 0 || stream != f.capturing {
			return 401 // not capturing: illegal state
		}
		f.capturing = 0
		*graph = 0
		if f.invalidated {
			return 901
		}
		if f.endCode != 0 {
			return f.endCode
		}
		h := f.handle()
		f.graphs[h] = f.recorded
		f.recorded = nil
		*graph = h
		return 0
	}
	s.GraphInstantiate = func(exec *uintptr, graph uintptr, flags uint64) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.logf("instantiate")
		nodes, ok := f.graphs[graph]
		if !ok {
			return 400
		}
		if flags != 0 {
			return 1
		}
		if f.instCode != 0 {
			return f.instCode
		}
		h := f.handle()
		f.execs[h] = append([]fakeNode(nil), nodes...)
		*exec = h
		return 0
	}
	s.GraphLaunch = func(exec uintptr, stream uintptr) int32 {
		f.on()
		f.mu.Lock()
		f.logf("launch")
		nodes, ok := f.execs[exec]
		if _, known := f.streams[stream]; !ok || !known {
			f.mu.Unlock()
			return 400
		}
		if f.capturing != 0 {
			f.mu.Unlock()
			return 900
		}
		f.graphLaunches++
		f.mu.Unlock()
		for _, run := range nodes {
			if code := run(); code != 0 {
				return code
			}
		}
		return 0
	}
	s.GraphExecDestroy = func(exec uintptr) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.logf("exec-destroy")
		if _, ok := f.execs[exec]; !ok {
			return 400
		}
		delete(f.execs, exec)
		return 0
	}
	s.GraphDestroy = func(graph uintptr) int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.logf("graph-destroy")
		if _, ok := f.graphs[graph]; !ok {
			return 400
		}
		delete(f.graphs, graph)
		return 0
	}
}

// kernel registers an emulated kernel taking nargs parameters.
func (f *fakeDriver) kernel(name string, nargs int, k FakeKernel) {
	f.kernels[name] = k
	f.arity[name] = nargs
}

// open opens a Context on the fake.
func (f *fakeDriver) open(device int) (*Context, error) {
	return openWith(f.backend, device, func() (*syms, error) { return f.table(), nil })
}
