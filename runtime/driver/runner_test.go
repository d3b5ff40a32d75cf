package driver_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/driver"
	"github.com/kgen-dev/kgen/runtime/ref"
	"github.com/kgen-dev/kgen/runtime/table"
	"github.com/kgen-dev/kgen/runtime/verify"
)

// pick returns, for one arch, one variant per (dtype, layout) with the most
// tokens and rows, plus a small-pack one per layout: every code path of the
// template, few kernels.
func pick(arch string) []table.Variant {
	best := map[string]table.Variant{}
	for _, v := range generated.Variants {
		if v.Backend != "hip" || v.Arch != arch || v.Family != "gemv" {
			continue
		}
		for _, key := range []string{v.Param("dtype") + "/" + v.Param("layout"), "p" + v.Param("pack") + "/" + v.Param("layout")} {
			b, ok := best[key]
			score := func(v table.Variant) int {
				return 100*v.IntParam("tokens") + 10*v.IntParam("rows") + v.IntParam("pack")
			}
			if !ok || score(v) > score(b) {
				best[key] = v
			}
		}
	}
	seen := map[string]bool{}
	var out []table.Variant
	for _, v := range generated.Variants { // table order
		for _, b := range best {
			if b.Key() == v.Key() && !seen[v.Key()] {
				seen[v.Key()] = true
				out = append(out, v)
			}
		}
	}
	return out
}

func elem(typ string, b []byte, i int) float32 {
	switch typ {
	case "f32":
		return math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	case "f16":
		return ref.F16ToF32(binary.LittleEndian.Uint16(b[2*i:]))
	case "bf16":
		return ref.BF16ToF32(binary.LittleEndian.Uint16(b[2*i:]))
	case "e4m3":
		return ref.E4M3ToF32(b[i])
	}
	panic("unknown element type " + typ)
}

// emulate is a CPU stand-in for variant v's kernel: it checks the launch
// geometry and the buffers the runner passes, then computes Y like the
// kernel (rows past N and tokens past T untouched). skipLast leaves the
// last output unwritten, to show that poisoning catches it.
func emulate(t *testing.T, v table.Variant, wave int, skipLast bool) driver.FakeKernel {
	var dt table.Dtype
	for _, d := range kruntime.Dtypes() {
		if d.Name == v.Param("dtype") {
			dt = d
		}
	}
	rows, splits := v.IntParam("rows"), max(1, v.IntParam("splits"))
	wg := v.IntParam("wg")
	if v.Param("layout") == "subgroup" || wg == 0 {
		wg = rows * wave
	}
	return func(grid, block [3]uint32, args []unsafe.Pointer, mem func(driver.Ptr, int) []byte) int32 {
		p := func(i int) driver.Ptr { return *(*driver.Ptr)(args[i]) }
		T, N, K := int(*(*int32)(args[6])), int(*(*int32)(args[7])), int(*(*int32)(args[8]))
		fail := func(f string, a ...any) int32 {
			t.Errorf("%s T=%d N=%d K=%d: %s", v.Name, T, N, K, fmt.Sprintf(f, a...))
			return 1
		}
		groups := (N + rows - 1) / rows
		if grid != [3]uint32{uint32(groups), uint32(splits), 1} || block != [3]uint32{uint32(wg), 1, 1} {
			return fail("grid %v block %v, want (%d,%d,1) (%d,1,1)", grid, block, groups, splits, wg)
		}
		w, x, y := mem(p(0), N*K*dt.WeightBytes), mem(p(1), T*K*dt.ActBytes), mem(p(3), 4*T*N)
		scale, partial, counter := mem(p(2), 4*N), mem(p(4), 4*splits*T*N), mem(p(5), 4*groups)
		if w == nil || x == nil || y == nil || partial == nil || counter == nil || (dt.Scaled && scale == nil) {
			return fail("a buffer is missing or too small")
		}
		for i := 0; i < groups; i++ {
			if binary.LittleEndian.Uint32(counter[4*i:]) != 0 {
				return fail("counter[%d] is not zero at launch", i)
			}
		}
		for i := 0; i < T*N; i++ {
			if binary.LittleEndian.Uint32(y[4*i:]) != 0x7FC00000 {
				return fail("Y[%d] is not poisoned at launch", i)
			}
		}
		for tt := 0; tt < T; tt++ {
			for n := 0; n < N; n++ {
				if skipLast && tt == T-1 && n == N-1 {
					continue
				}
				var acc float32
				for k := 0; k < K; k++ {
					acc += elem(dt.Weight, w, n*K+k) * elem(dt.Act, x, tt*K+k)
				}
				if dt.Scaled {
					acc *= math.Float32frombits(binary.LittleEndian.Uint32(scale[4*n:]))
				}
				binary.LittleEndian.PutUint32(y[4*(tt*N+n):], math.Float32bits(acc))
			}
		}
		return 0
	}
}

func fakeRunner(t *testing.T, arch string, vs []table.Variant, skipLast bool) *verify.DriverRunner {
	t.Helper()
	defs := map[string]driver.FakeKernelDef{}
	var names []string
	for _, v := range vs {
		defs[v.Name] = driver.FakeKernelDef{Args: 9, Run: emulate(t, v, 32, skipLast)}
		names = append(names, v.Name)
	}
	ctx, err := driver.OpenFake(driver.CUDA, 32, defs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctx.Close)
	r, err := verify.NewDriverRunner(ctx, arch, driver.Image{Name: "fake.cubin", Data: []byte(strings.Join(names, " "))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// TestDriverRunnerOnFake runs verify's DriverRunner over the fake driver
// with CPU-emulated kernels: launch geometry, argument order, buffer sizes,
// poisoning and the counter's state are checked on every run.
func TestDriverRunnerOnFake(t *testing.T) {
	vs := pick("gfx1100")
	if len(vs) < 5 {
		t.Fatalf("picked only %d gfx1100 variants", len(vs))
	}
	r := fakeRunner(t, "gfx1100", vs, false)
	d := r.Device()
	if d.Backend != "hip" || d.Arch != "gfx1100" || d.Wave != 32 || d.MaxWorkgroup != 1024 || d.ComputeUnits != 132 || d.SharedMemory != 49152 {
		t.Errorf("device %+v", d)
	}
	rep, err := verify.Run(r, vs, verify.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 0 || rep.Verified != len(vs) {
		t.Fatalf("%s\n%s", rep.Summary(), rep.FailureLines())
	}
	t.Logf("%s, %d shape runs (%s)", rep.Summary(), rep.Shapes, r.Name())

	// An unwritten element fails through the NaN poison.
	bad := fakeRunner(t, "gfx1100", vs[:1], true)
	rep, err = verify.Run(bad, vs[:1], verify.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 1 || !strings.Contains(rep.FailureLines(), "NaN") {
		t.Errorf("unwritten output not caught: %s\n%s", rep.Summary(), rep.FailureLines())
	}

	// Rows of another arch or backend are refused.
	other := vs[0]
	other.Arch = "gfx1200"
	ops, err := kruntime.VerifyCases(&other, d)
	if err != nil {
		t.Fatal(err)
	}
	l, err := kruntime.Plan(&other, d, ops[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(l, nil, 0, 0); err == nil {
		t.Error("a gfx1200 row ran on a gfx1100 runner")
	}
}

func TestNewDriverRunnerRefuses(t *testing.T) {
	ctx, err := driver.OpenFake(driver.CUDA, 32, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	for arch, want := range map[string]string{
		"gfx90a":  "wave 64",
		"gfx942":  "wave 64",
		"nowhere": "unknown arch",
	} {
		if _, err := verify.NewDriverRunner(ctx, arch, driver.Image{Data: []byte("k")}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", arch, err)
		}
	}
	for _, a := range generated.Archs {
		if a.Backend == "vulkan" {
			if _, err := verify.NewDriverRunner(ctx, a.Name, driver.Image{Data: []byte("k")}); err == nil || !strings.Contains(err.Error(), "not a HIP arch") {
				t.Errorf("%s: %v", a.Name, err)
			}
			break
		}
	}
}

// reducedSource keeps the shared part of an arch's generated .hip file and
// the extern "C" entries of the named kernels (the file's entries are
// KG_KERNEL(...) name(...) { ... } blocks ending with a "}" line).
func reducedSource(src string, keep map[string]bool) string {
	var out []string
	in := true
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(line, "KG_KERNEL(") {
			_, rest, _ := strings.Cut(line, ") ")
			name, _, _ := strings.Cut(rest, "(")
			in = keep[name]
		}
		if in {
			out = append(out, line)
		}
		if line == "}" && !in {
			in = true // past a dropped entry
		}
	}
	return strings.Join(out, "\n")
}

func TestReducedSource(t *testing.T) {
	src := "head\nKG_KERNEL(32) a(int x) {\n  body a;\n}\nKG_KERNEL(64) b(int x) {\n  body b;\n}\nKG_KERNEL(32) c(int x) {\n  body c;\n}\n"
	got := reducedSource(src, map[string]bool{"b": true})
	if want := "head\nKG_KERNEL(64) b(int x) {\n  body b;\n}\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestDriverRunnerGEMVOnGPU compiles the committed gemv_sm90.hip (or
// gemv_gfx1100.hip, also wave 32, where the table has no sm90) with nvcc
// -ptx through kgen_hip.h's CUDA mapping and verifies its kernels on the GPU
// with verify.Run. It skips without a CUDA driver. By
// default it builds a subset (one kernel per dtype x layout and pack x
// layout); KGEN_DRIVER_GEMV=all builds and verifies every kernel.
func TestDriverRunnerGEMVOnGPU(t *testing.T) {
	ctx, err := driver.Open(driver.CUDA, 0)
	if errors.Is(err, driver.ErrNoDriver) || errors.Is(err, driver.ErrNoDevice) {
		t.Skipf("no CUDA driver/device on this machine, skipping the GPU GEMV test: %v", err)
	}
	if err != nil {
		t.Fatalf("Open(cuda): %v", err)
	}
	defer ctx.Close()
	nvcc, err := exec.LookPath("nvcc")
	if err != nil {
		t.Fatal("the CUDA driver is present but nvcc is not on PATH: this test needs nvcc -ptx (CUDA toolkit)")
	}
	arch := "gfx1100" // wave 32, like every NVIDIA GPU
	for _, a := range generated.Archs {
		if a.Name == "sm90" { // the arch spec'd for NVIDIA Hopper, when present
			arch = a.Name
		}
	}
	vs := pick(arch)
	if os.Getenv("KGEN_DRIVER_GEMV") == "all" {
		vs = nil
		for _, v := range generated.Variants {
			if v.Backend == "hip" && v.Arch == arch {
				vs = append(vs, v)
			}
		}
	}
	hipDir, err := filepath.Abs(filepath.Join("..", "..", "generated", "hip"))
	if err != nil {
		t.Fatal(err)
	}
	srcBytes, err := os.ReadFile(filepath.Join(hipDir, "gemv_"+arch+".hip"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kruntime.CheckHash(&vs[0], srcBytes); err != nil {
		t.Fatal(err)
	}
	keep := map[string]bool{}
	for _, v := range vs {
		keep[v.Name] = true
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "gemv.cu")
	if err := os.WriteFile(src, []byte(reducedSource(string(srcBytes), keep)), 0o644); err != nil {
		t.Fatal(err)
	}
	ptx := filepath.Join(dir, "gemv.ptx")
	if out, err := exec.Command(nvcc, "-x", "cu", "-std=c++17", "-ptx", "-O3", "-I", hipDir, "-o", ptx, src).CombinedOutput(); err != nil {
		t.Fatalf("nvcc: %v\n%s", err, out)
	}
	image, err := os.ReadFile(ptx)
	if err != nil {
		t.Fatal(err)
	}
	r, err := verify.NewDriverRunner(ctx, arch, driver.Image{Name: ptx, Data: image})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var mu sync.Mutex
	var log strings.Builder
	rep, err := verify.Run(r, vs, verify.Options{Seed: 1, Log: &lockedWriter{&mu, &log}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s, %d shape runs, %v; skipped %d", r.Name(), rep.Summary(), rep.Shapes, rep.Elapsed, len(rep.Skipped))
	for _, s := range rep.Skipped {
		t.Log("skipped " + s)
	}
	if rep.Failed != 0 {
		t.Fatalf("%s\n%s", rep.Summary(), rep.FailureLines())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
