package driver

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// withLibraries points a backend at library names that cannot exist, so
// "driver absent" is deterministic on every machine.
func withLibraries(t *testing.T, b Backend, names ...string) {
	t.Helper()
	old := Libraries[b]
	Libraries[b] = names
	t.Cleanup(func() { Libraries[b] = old })
}

func TestOpenNoDriver(t *testing.T) {
	for _, tc := range []struct {
		b     Backend
		hints []string
	}{
		{CUDA, []string{"NVIDIA driver (libcuda.so.1)"}},
		{HIP, []string{"ROCm (libamdhip64.so)", "apt"}},
	} {
		t.Run(string(tc.b), func(t *testing.T) {
			withLibraries(t, tc.b, "libkgen-absent-"+string(tc.b)+".so.1")
			c, err := Open(tc.b, 0)
			if err == nil {
				c.Close()
				t.Fatal("Open succeeded with an absent library")
			}
			if !errors.Is(err, ErrNoDriver) {
				t.Fatalf("error does not wrap ErrNoDriver: %v", err)
			}
			for _, h := range append(tc.hints, "libkgen-absent-"+string(tc.b)+".so.1") {
				if !strings.Contains(err.Error(), h) {
					t.Errorf("error lacks %q: %v", h, err)
				}
			}
		})
	}
}

func TestOpenBadArguments(t *testing.T) {
	if _, err := Open("metal", 0); err == nil || !strings.Contains(err.Error(), "unknown backend") {
		t.Errorf("unknown backend: %v", err)
	}
	if _, err := newFake(CUDA).open(-1); !errors.Is(err, ErrNoDevice) {
		t.Errorf("negative device: %v", err)
	}
}

func TestPackParams(t *testing.T) {
	args := []any{Ptr(0x1122334455667788), int32(-5), uint32(0xDEADBEEF), float32(1.5), Ptr(0)}
	p, err := packParams(args)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.ptrs) != len(args) || len(p.slots) != len(args) {
		t.Fatalf("%d pointers, %d slots for %d args", len(p.ptrs), len(p.slots), len(args))
	}
	for i := range args {
		if p.ptrs[i] != unsafe.Pointer(&p.slots[i]) {
			t.Errorf("ptrs[%d] does not point at slot %d", i, i)
		}
		if uintptr(p.ptrs[i])%8 != 0 {
			t.Errorf("arg %d is not 8-byte aligned", i)
		}
	}
	// Read back through the pointers exactly as the driver does: as many
	// bytes as the parameter's C type has, little-endian.
	if v := *(*uint64)(p.ptrs[0]); v != 0x1122334455667788 {
		t.Errorf("Ptr arg reads %#x", v)
	}
	if v := *(*int32)(p.ptrs[1]); v != -5 {
		t.Errorf("int32 arg reads %d", v)
	}
	if v := *(*uint32)(p.ptrs[2]); v != 0xDEADBEEF {
		t.Errorf("uint32 arg reads %#x", v)
	}
	if v := *(*float32)(p.ptrs[3]); v != 1.5 {
		t.Errorf("float32 arg reads %g", v)
	}
	raw := unsafe.Slice((*byte)(p.ptrs[1]), 8)
	if want := []byte{0xFB, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}; !reflect.DeepEqual(raw, want) {
		t.Errorf("int32 slot bytes %x, want %x", raw, want)
	}
	raw = unsafe.Slice((*byte)(p.ptrs[3]), 4)
	if binary.LittleEndian.Uint32(raw) != math.Float32bits(1.5) {
		t.Errorf("float32 slot bytes %x", raw)
	}

	var pin runtime.Pinner
	kp := p.pin(&pin)
	if kp != &p.ptrs[0] {
		t.Error("pin does not return the pointer array")
	}
	pin.Unpin()

	empty, err := packParams(nil)
	if err != nil {
		t.Fatal(err)
	}
	if kp := empty.pin(&pin); kp != nil {
		t.Error("no arguments must pass NULL kernelParams")
	}
	pin.Unpin()

	for _, bad := range []any{7, int64(7), float64(1), uintptr(1), "x", nil} {
		_, err := packParams([]any{Ptr(1), bad})
		if err == nil || !strings.Contains(err.Error(), "argument 1") {
			t.Errorf("%T accepted or error unclear: %v", bad, err)
		}
	}
}

func TestErrorNames(t *testing.T) {
	for _, tc := range []struct {
		b    Backend
		code int
		want string
	}{
		{CUDA, 1, "CUDA_ERROR_INVALID_VALUE"}, {CUDA, 2, "CUDA_ERROR_OUT_OF_MEMORY"}, {CUDA, 218, "CUDA_ERROR_INVALID_PTX"},
		{CUDA, 500, "CUDA_ERROR_NOT_FOUND"}, {CUDA, 700, "CUDA_ERROR_ILLEGAL_ADDRESS"}, {CUDA, 719, "CUDA_ERROR_LAUNCH_FAILED"},
		{CUDA, 12345, "CUDA_ERROR_UNRECOGNIZED"},
		{HIP, 1, "hipErrorInvalidValue"}, {HIP, 98, "hipErrorInvalidDeviceFunction"}, {HIP, 209, "hipErrorNoBinaryForGpu"},
		{HIP, 500, "hipErrorNotFound"}, {HIP, 700, "hipErrorIllegalAddress"}, {HIP, 12345, "hipErrorUnrecognized"},
	} {
		if got := staticErrorName(tc.b, tc.code); got != tc.want {
			t.Errorf("%s %d: %s, want %s", tc.b, tc.code, got, tc.want)
		}
	}
	cu := &syms{names: symbolNames(CUDA)}
	if got := cu.newError(CUDA, "LaunchKernel", 1).Error(); got != "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (1)" {
		t.Errorf("CUDA error text %q", got)
	}
	hip := &syms{names: symbolNames(HIP)}
	if got := hip.newError(HIP, "LaunchKernel", 1).Error(); got != "hipModuleLaunchKernel: hipErrorInvalidValue (1)" {
		t.Errorf("HIP error text %q", got)
	}
	// The driver's own name wins when it has one.
	f := newFake(CUDA)
	if got := f.table().newError(CUDA, "MemAlloc", 2).Error(); got != "cuMemAlloc_v2: drv:CUDA_ERROR_OUT_OF_MEMORY (2)" {
		t.Errorf("driver-named CUDA error %q", got)
	}
	if got := f.table().newError(CUDA, "MemAlloc", 4242).Error(); got != "cuMemAlloc_v2: CUDA_ERROR_UNRECOGNIZED (4242)" {
		t.Errorf("unknown CUDA code %q", got)
	}
	h := newFake(HIP)
	if got := h.table().newError(HIP, "MemAlloc", 2).Error(); got != "hipMalloc: drv:hipErrorOutOfMemory (2)" {
		t.Errorf("driver-named HIP error %q", got)
	}
	if got := h.table().newError(HIP, "MemAlloc", 4242).Error(); got != "hipMalloc: hipErrorUnrecognized (4242)" {
		t.Errorf("HIP placeholder name not replaced: %q", got)
	}
	// Sentinels.
	for code, lost := range map[int]bool{700: true, 719: true, 716: true, 1: false, 2: false, 500: false} {
		if got := errors.Is(cu.newError(CUDA, "Synchronize", int32(code)), ErrDeviceLost); got != lost {
			t.Errorf("CUDA %d: Is(ErrDeviceLost) = %v", code, got)
		}
	}
	if !errors.Is(hip.newError(HIP, "Init", 100), ErrNoDevice) || !errors.Is(cu.newError(CUDA, "DeviceGet", 101), ErrNoDevice) {
		t.Error("no-device codes do not match ErrNoDevice")
	}
}

func TestSymbolTable(t *testing.T) {
	typ := reflect.TypeOf(syms{})
	exclusive := map[string]Backend{
		"PrimaryCtxRetain": CUDA, "PrimaryCtxRelease": CUDA, "CtxSetCurrent": CUDA, "CuGetErrorName": CUDA,
		"SetDevice": HIP, "HipGetErrorName": HIP,
	}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if f.Type.Kind() != reflect.Func {
			continue
		}
		cu, hip := f.Tag.Get("cuda"), f.Tag.Get("hip")
		if only, ok := exclusive[f.Name]; ok {
			if (only == CUDA) != (cu != "" && hip == "") || (only == HIP) != (hip != "" && cu == "") {
				t.Errorf("%s: tags cuda=%q hip=%q, want %s only", f.Name, cu, hip, only)
			}
		} else if cu == "" || hip == "" {
			t.Errorf("%s is shared code: it needs both symbols (cuda=%q hip=%q)", f.Name, cu, hip)
		}
		if cu != "" && !strings.HasPrefix(cu, "cu") || hip != "" && !strings.HasPrefix(hip, "hip") {
			t.Errorf("%s: odd symbol names %q %q", f.Name, cu, hip)
		}
	}
	for _, b := range []Backend{CUDA, HIP} {
		_, err := bind(b, func(string) uintptr { return 0 })
		if err == nil {
			t.Fatalf("%s: binding with no symbols succeeded", b)
		}
		msg := err.Error()
		for _, want := range map[Backend][]string{
			CUDA: {"cuInit", "cuLaunchKernel", "cuMemAlloc_v2", "cuDevicePrimaryCtxRetain", "cuEventElapsedTime", "cuStreamCreate", "cuStreamDestroy_v2"},
			HIP:  {"hipInit", "hipModuleLaunchKernel", "hipMalloc", "hipSetDevice", "hipEventCreateWithFlags", "hipStreamCreateWithFlags", "hipStreamDestroy"},
		}[b] {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: missing-symbol error lacks %s: %s", b, want, msg)
			}
		}
		// Graph support is optional: eager launches work without it.
		for _, opt := range []string{"GetErrorName", "LoadDataEx", "Capture", "Graph"} {
			if strings.Contains(msg, opt) {
				t.Errorf("%s: optional %s reported missing", b, opt)
			}
		}
	}
}

func TestIsBinaryImage(t *testing.T) {
	for img, want := range map[string]bool{
		"\x7fELF\x02\x01":                           true,
		"__CLANG_OFFLOAD_BUNDLE____hip-amdgcn":      true,
		"\x50\xed\x55\xba\x01\x00":                  true,
		"//\n// Generated by NVIDIA NVVM\n.version": false,
		".version 8.0\n":                            false,
	} {
		if got := isBinaryImage([]byte(img)); got != want {
			t.Errorf("%q: %v", img, got)
		}
	}
}

// fillKernel: fill(Ptr y, uint32 v, int32 n) sets y[0..n) = v.
func fillKernel(grid, block [3]uint32, args []unsafe.Pointer, mem func(Ptr, int) []byte) int32 {
	y, v, n := *(*Ptr)(args[0]), *(*uint32)(args[1]), *(*int32)(args[2])
	r := mem(y, 4*int(n))
	if r == nil {
		return 700
	}
	for i := 0; i < int(n); i++ {
		binary.LittleEndian.PutUint32(r[4*i:], v)
	}
	return 0
}

// axpbKernel: axpb(Ptr x, Ptr y, float32 a, int32 n) sets y[i] = a*x[i] + i,
// one thread per element over the grid.
func axpbKernel(grid, block [3]uint32, args []unsafe.Pointer, mem func(Ptr, int) []byte) int32 {
	x, y, a, n := *(*Ptr)(args[0]), *(*Ptr)(args[1]), *(*float32)(args[2]), *(*int32)(args[3])
	xs, ys := mem(x, 4*int(n)), mem(y, 4*int(n))
	if xs == nil || ys == nil {
		return 700
	}
	threads := int(grid[0] * block[0])
	for i := 0; i < int(n) && i < threads; i++ {
		xv := math.Float32frombits(binary.LittleEndian.Uint32(xs[4*i:]))
		binary.LittleEndian.PutUint32(ys[4*i:], math.Float32bits(a*xv+float32(i)))
	}
	return 0
}

func f32bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bytesf32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// TestSharedPathOnFake runs the whole shared code path (thread, table,
// bookkeeping, params, timing, errors) against the Go fake, per backend.
func TestSharedPathOnFake(t *testing.T) {
	for _, b := range []Backend{CUDA, HIP} {
		t.Run(string(b), func(t *testing.T) {
			f := newFake(b)
			f.nameFunc = false // the static names, as the brief's messages read
			f.kernel("fill", 3, fillKernel)
			f.kernel("axpb", 4, axpbKernel)
			c, err := f.open(0)
			if err != nil {
				t.Fatal(err)
			}
			closed := false
			defer func() {
				if !closed {
					c.Close()
				}
			}()
			info := c.Info()
			if info.Name != "Fake GPU "+string(b) || info.WarpSize != 32 || info.ComputeUnits != 132 ||
				info.MaxThreadsPerBlock != 1024 || info.SharedMemPerBlock != 49152 || info.Backend != b {
				t.Errorf("info %+v", info)
			}
			if b == CUDA && (f.retained != 1 || f.current != 0xc0) {
				t.Errorf("primary context: retained %d current %#x", f.retained, f.current)
			}
			if b == HIP && f.setDevice != 0 {
				t.Errorf("hipSetDevice(%d)", f.setDevice)
			}

			// Memory.
			const n = 1000
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(i%7) - 2
			}
			px, err := c.Alloc(4 * n)
			if err != nil {
				t.Fatal(err)
			}
			py, err := c.Alloc(4 * n)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Upload(px, f32bytes(x)); err != nil {
				t.Fatal(err)
			}
			if err := c.Memset32(py, 0x7FC00000, n); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, 4*n)
			if err := c.Download(got, py); err != nil {
				t.Fatal(err)
			}
			if v := bytesf32(got); !math.IsNaN(float64(v[0])) || !math.IsNaN(float64(v[n-1])) {
				t.Errorf("memset: %v %v", v[0], v[n-1])
			}
			if err := c.Upload(px+4, make([]byte, 4*n)); err == nil || !strings.Contains(err.Error(), "outside every allocation") {
				t.Errorf("overlong upload: %v", err)
			}

			// Modules: text is NUL-terminated on the way in.
			m, err := c.LoadModule([]byte("fill axpb trap"))
			if err != nil {
				t.Fatal(err)
			}
			if got := f.images[len(f.images)-1]; got != "fill axpb trap" {
				t.Errorf("driver saw image %q", got)
			}
			if _, err := m.Function("nope"); err == nil || !strings.Contains(err.Error(),
				map[Backend]string{CUDA: "cuModuleGetFunction: CUDA_ERROR_NOT_FOUND (500)", HIP: "hipModuleGetFunction: hipErrorNotFound (500)"}[b]) {
				t.Errorf("missing function: %v", err)
			}
			axpb, err := m.Function("axpb")
			if err != nil {
				t.Fatal(err)
			}
			fill, err := m.Function("fill")
			if err != nil {
				t.Fatal(err)
			}

			// Launch with mixed argument types; exact result.
			if err := c.Launch(axpb, [3]uint32{(n + 255) / 256, 1, 1}, [3]uint32{256, 1, 1}, 0, px, py, float32(3), int32(n)); err != nil {
				t.Fatal(err)
			}
			if err := c.Sync(); err != nil {
				t.Fatal(err)
			}
			if err := c.Download(got, py); err != nil {
				t.Fatal(err)
			}
			for i, v := range bytesf32(got) {
				if want := 3*x[i] + float32(i); v != want {
					t.Fatalf("y[%d] = %g, want %g", i, v, want)
				}
			}

			// Launch errors: the driver's, named; ours, before any call.
			err = c.Launch(axpb, [3]uint32{1, 1, 1}, [3]uint32{2048, 1, 1}, 0, px, py, float32(3), int32(n))
			want := map[Backend]string{CUDA: "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (1)", HIP: "hipModuleLaunchKernel: hipErrorInvalidValue (1)"}[b]
			var de *Error
			if err == nil || !strings.HasSuffix(err.Error(), want) || !strings.Contains(err.Error(), "launch axpb") || !errors.As(err, &de) || de.Code != 1 {
				t.Errorf("oversized block: %v", err)
			}
			if err := c.Launch(axpb, [3]uint32{0, 1, 1}, [3]uint32{1, 1, 1}, 0); err == nil || !strings.Contains(err.Error(), "zero dimension") {
				t.Errorf("zero grid: %v", err)
			}
			if err := c.Launch(fill, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, py, 7, int32(1)); err == nil || !strings.Contains(err.Error(), "argument 1 has type int") {
				t.Errorf("int argument: %v", err)
			}

			// Time: fn launches on the driver thread (re-entrant calls);
			// the fake advances its clock 0.5 ms per launch.
			launches := f.launches
			us, err := c.Time(3, func() error {
				return c.Launch(fill, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, py, uint32(0x3F800000), int32(n))
			})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(us, []float64{500, 500, 500}) || f.launches != launches+3 {
				t.Errorf("Time: %v after %d launches", us, f.launches-launches)
			}
			if _, err := c.Time(2, func() error { return errors.New("boom") }); err == nil || !strings.Contains(err.Error(), "timed run 0: boom") {
				t.Errorf("Time error: %v", err)
			}

			// Many goroutines at once: every call still runs on one thread.
			var wg sync.WaitGroup
			errs := make(chan error, 16)
			for g := 0; g < 16; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					p, err := c.Alloc(64)
					if err != nil {
						errs <- err
						return
					}
					in := make([]byte, 64)
					for i := range in {
						in[i] = byte(g + i)
					}
					out := make([]byte, 64)
					if err := c.Upload(p, in); err != nil {
						errs <- err
					} else if err := c.Download(out, p); err != nil {
						errs <- err
					} else if !reflect.DeepEqual(in, out) {
						errs <- fmt.Errorf("goroutine %d: round trip differs", g)
					}
					if err := c.Free(p); err != nil {
						errs <- err
					}
				}(g)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if err := c.Free(px + 4); err == nil {
				t.Error("Free of a non-allocation succeeded")
			}
			if int(f.tid.Load()) != c.tid {
				t.Errorf("fake saw thread %d, context thread %d", f.tid.Load(), c.tid)
			}
			if off := f.offThread.Load(); off != 0 {
				t.Errorf("%d of %d driver calls ran off the driver thread", off, f.calls.Load())
			}

			// Close releases what is left, once; later calls fail.
			c.Close()
			closed = true
			c.Close()
			f.mu.Lock()
			if len(f.mem) != 0 || len(f.modules) != 0 || len(f.events) != 0 {
				t.Errorf("after Close: %d allocations, %d modules, %d events", len(f.mem), len(f.modules), len(f.events))
			}
			if b == CUDA && f.released != 1 {
				t.Errorf("primary context released %d times", f.released)
			}
			f.mu.Unlock()
			if _, err := c.Alloc(4); !errors.Is(err, ErrClosed) {
				t.Errorf("Alloc after Close: %v", err)
			}
		})
	}
}

func TestFakeFailures(t *testing.T) {
	f := newFake(CUDA)
	f.initCode = 100
	if _, err := f.open(0); !errors.Is(err, ErrNoDevice) {
		t.Errorf("cuInit no device: %v", err)
	}
	f = newFake(HIP)
	if _, err := f.open(1); !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), "1 device(s)") {
		t.Errorf("ordinal out of range: %v", err)
	}
	f = newFake(HIP)
	f.warp = 7
	if _, err := f.open(0); err == nil || !strings.Contains(err.Error(), "implausible") {
		t.Errorf("implausible attributes: %v", err)
	}
	f = newFake(CUDA)
	f.warp = 7
	if _, err := f.open(0); err == nil || f.released != 1 {
		t.Errorf("failed open must release the primary context: %v, released %d", err, f.released)
	}

	// A failing JIT carries the log; a sticky fault is ErrDeviceLost.
	f = newFake(CUDA)
	c, err := f.open(0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.LoadModule([]byte("bad ptx"))
	if err == nil || !strings.Contains(err.Error(), "cuModuleLoadData: drv:CUDA_ERROR_INVALID_PTX (218)") ||
		!strings.Contains(err.Error(), "line 1: bad token") {
		t.Errorf("JIT failure: %v", err)
	}
	m, err := c.LoadModule([]byte("trap"))
	if err != nil {
		t.Fatal(err)
	}
	trap, err := m.Function("trap")
	if err != nil {
		t.Fatal(err)
	}
	c.SetSyncLaunches(true)
	err = c.Launch(trap, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0)
	if !errors.Is(err, ErrDeviceLost) || !strings.Contains(err.Error(), "after launch trap") || !strings.Contains(err.Error(), "ILLEGAL_ADDRESS (700)") {
		t.Errorf("sticky fault: %v", err)
	}
	if err := m.Unload(); err != nil {
		t.Fatal(err)
	}
	if err := c.Launch(trap, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0); err == nil || !strings.Contains(err.Error(), "unloaded") {
		t.Errorf("launch from unloaded module: %v", err)
	}
}

// TestCUDAKernel runs a real kernel through libcuda: it runs where the
// NVIDIA driver and nvcc are present (the GPU machine) and skips elsewhere.
func TestCUDAKernel(t *testing.T) {
	c, err := Open(CUDA, 0)
	if errors.Is(err, ErrNoDriver) || errors.Is(err, ErrNoDevice) {
		t.Skipf("no CUDA driver/device on this machine, skipping the GPU integration test: %v", err)
	}
	if err != nil {
		t.Fatalf("Open(cuda): %v", err)
	}
	defer c.Close()
	info := c.Info()
	t.Logf("device %q: %d SMs, warp %d, %d threads/block, %d B shared/block, %s",
		info.Name, info.ComputeUnits, info.WarpSize, info.MaxThreadsPerBlock, info.SharedMemPerBlock, info.DriverString())
	nvcc, err := exec.LookPath("nvcc")
	if err != nil {
		t.Fatal("the CUDA driver is present but nvcc is not on PATH: this test needs nvcc -ptx (CUDA toolkit)")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "k.cu")
	const kernel = `extern "C" __global__ void axpb(const float* x, float* y, float a, int n, unsigned b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + (float)(b + (unsigned)i);
}
extern "C" __global__ void spin(float* y, int iters) {
  float v = y[threadIdx.x];
  for (int i = 0; i < iters; ++i) v = v * 0.999f + 1.0f;
  y[threadIdx.x] = v;
}
`
	if err := os.WriteFile(src, []byte(kernel), 0o644); err != nil {
		t.Fatal(err)
	}
	ptxPath := filepath.Join(dir, "k.ptx")
	if out, err := exec.Command(nvcc, "-ptx", "-o", ptxPath, src).CombinedOutput(); err != nil {
		t.Fatalf("nvcc -ptx: %v\n%s", err, out)
	}
	ptx, err := os.ReadFile(ptxPath)
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.LoadModule(ptx)
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.Function("axpb")
	if err != nil {
		t.Fatal(err)
	}
	const n = 100003 // not a multiple of the block: the tail is guarded
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i%13) - 6
	}
	px, err := c.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	py, err := c.Alloc(4 * (n + 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Upload(px, f32bytes(x)); err != nil {
		t.Fatal(err)
	}
	if err := c.Memset32(py, 0x7FC00000, n+1); err != nil {
		t.Fatal(err)
	}
	c.SetSyncLaunches(true)
	if err := c.Launch(f, [3]uint32{(n + 255) / 256, 1, 1}, [3]uint32{256, 1, 1}, 0, px, py, float32(2), int32(n), uint32(5)); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4*(n+1))
	if err := c.Download(got, py); err != nil {
		t.Fatal(err)
	}
	y := bytesf32(got)
	for i := 0; i < n; i++ {
		if want := 2*x[i] + float32(5+i); y[i] != want {
			t.Fatalf("y[%d] = %g, want %g (exact)", i, y[i], want)
		}
	}
	if !math.IsNaN(float64(y[n])) {
		t.Errorf("y[n] = %g: the kernel wrote past n", y[n])
	}

	// Errors come back named.
	err = c.Launch(f, [3]uint32{1, 1, 1}, [3]uint32{4096, 1, 1}, 0, px, py, float32(2), int32(n), uint32(5))
	if err == nil || !strings.Contains(err.Error(), "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (1)") {
		t.Errorf("oversized block: %v", err)
	}
	if _, err := m.Function("missing"); err == nil || !strings.Contains(err.Error(), "CUDA_ERROR_NOT_FOUND (500)") {
		t.Errorf("missing kernel: %v", err)
	}
	if _, err := c.LoadModule([]byte(".version 99.0\n.target sm_90\nnot ptx")); err == nil {
		t.Error("garbage PTX loaded")
	} else {
		t.Logf("bad PTX: %v", err)
	}

	// Events: a longer kernel takes measurably longer.
	c.SetSyncLaunches(false)
	spin, err := m.Function("spin")
	if err != nil {
		t.Fatal(err)
	}
	timeIt := func(iters int32) float64 {
		us, err := c.Time(5, func() error { return c.Launch(spin, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, py, iters) })
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range us {
			if !(v > 0) {
				t.Fatalf("event time %v", us)
			}
		}
		return us[len(us)-1]
	}
	short, long := timeIt(1000), timeIt(1000000)
	t.Logf("spin 1e3: %.1f us, 1e6: %.1f us", short, long)
	if !(long > 10*short) {
		t.Errorf("event timing implausible: %.1f us vs %.1f us", long, short)
	}

	// Graphs: a captured launch is recorded, not run, and each replay runs
	// it with the captured arguments; replays time like eager launches.
	if err := c.Memset32(py, 0x7FC00000, n+1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TimeGraph(1, func() error {
		return c.Launch(f, [3]uint32{(n + 255) / 256, 1, 1}, [3]uint32{256, 1, 1}, 0, px, py, float32(3), int32(n), uint32(7))
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.Download(got, py); err != nil {
		t.Fatal(err)
	}
	for i, v := range bytesf32(got)[:n] {
		if want := 3*x[i] + float32(7+i); v != want {
			t.Fatalf("after graph replays: y[%d] = %g, want %g", i, v, want)
		}
	}
	graphIt := func(iters int32) float64 {
		us, err := c.TimeGraph(5, func() error { return c.Launch(spin, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, py, iters) })
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range us {
			if !(v > 0) {
				t.Fatalf("graph replay time %v", us)
			}
		}
		return us[len(us)-1]
	}
	gshort, glong := graphIt(1000), graphIt(1000000)
	t.Logf("graph-timed spin 1e3: %.1f us, 1e6: %.1f us", gshort, glong)
	if !(glong > 10*gshort) || glong > 2*long || long > 2*glong {
		t.Errorf("graph timing implausible: %.1f us vs %.1f us (eager %.1f us)", glong, gshort, long)
	}
	if _, err := c.TimeGraph(2, func() error { return errors.New("boom") }); err == nil || !strings.Contains(err.Error(), "captured run: boom") {
		t.Errorf("failed capture: %v", err)
	}
	if us := timeIt(1000); !(us > 0) {
		t.Errorf("eager timing after a failed capture: %v", us)
	}

	// Callers on many goroutines share the context.
	var wg sync.WaitGroup
	start := time.Now()
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 4*256)
			for i := 0; i < 20; i++ {
				if err := c.Download(buf, py); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("160 downloads from 8 goroutines: %v", time.Since(start))
	if err := c.Free(px); err != nil {
		t.Error(err)
	}
}
