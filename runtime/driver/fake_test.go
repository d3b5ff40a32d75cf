package driver

import (
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
}

func newFake(b Backend) *fakeDriver {
	return &fakeDriver{
		backend: b, kernels: map[string]FakeKernel{}, arity: map[string]int{}, devices: 1, warp: 32, nameFunc: true,
		mem: map[uint64][]byte{}, next: 0x7f0000000000, modules: map[uintptr][]string{},
		events: map[uintptr]float32{}, nextEvent: 0x100, setDevice: -1, syncFault: 700,
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
		name := f.funcs[fn-1]
		k, nargs := f.kernels[name], f.arity[name]
		f.mu.Unlock()
		if bx*by*bz > 1024 || extra != nil {
			return 1
		}
		if name == "trap" {
			f.mu.Lock()
			f.pending = f.syncFault
			f.mu.Unlock()
			return 0
		}
		if k == nil {
			return 98
		}
		var args []unsafe.Pointer
		if params != nil {
			args = unsafe.Slice(params, nargs)
		} else if nargs != 0 {
			return 1
		}
		mem := func(p Ptr, n int) []byte {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.region(uint64(p), n)
		}
		code := k([3]uint32{gx, gy, gz}, [3]uint32{bx, by, bz}, args, mem)
		f.mu.Lock()
		f.launches++
		f.clock += 0.5
		f.mu.Unlock()
		return code
	}
	s.Synchronize = func() int32 {
		f.on()
		f.mu.Lock()
		defer f.mu.Unlock()
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
		if _, ok := f.events[ev]; !ok || stream != 0 {
			return 400
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

// kernel registers an emulated kernel taking nargs parameters.
func (f *fakeDriver) kernel(name string, nargs int, k FakeKernel) {
	f.kernels[name] = k
	f.arity[name] = nargs
}

// open opens a Context on the fake.
func (f *fakeDriver) open(device int) (*Context, error) {
	return openWith(f.backend, device, func() (*syms, error) { return f.table(), nil })
}
