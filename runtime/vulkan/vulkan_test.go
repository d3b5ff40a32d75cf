package vulkan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kgen-dev/kgen/runtime/internal/vktest"
)

// TestMain selects lavapipe unless the caller chose a driver.
func TestMain(m *testing.M) {
	vktest.PreferLavapipe()
	os.Exit(m.Run())
}

// wantLavapipe is true when the environment selects lavapipe, in which case
// the lavapipe-specific checks are mandatory.
func wantLavapipe() bool {
	return strings.Contains(os.Getenv("VK_DRIVER_FILES")+os.Getenv("VK_ICD_FILENAMES"), "lvp_icd")
}

// openTest opens an instance and a device (lavapipe when listed, else
// device 0), closed at the end of the test.
func openTest(t *testing.T) (*Instance, *Device) {
	t.Helper()
	inst, err := Open()
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(inst.Close)
	index := 0
	for _, info := range inst.Devices() {
		if info.DriverName == "llvmpipe" {
			index = info.Index
			break
		}
	}
	dev, err := inst.OpenDevice(index)
	if err != nil {
		t.Fatalf("OpenDevice(%d): %v", index, err)
	}
	t.Cleanup(dev.Close)
	return inst, dev
}

// compileGLSL compiles a compute shader with glslangValidator.
func compileGLSL(t *testing.T, src string) []byte {
	t.Helper()
	tool, err := exec.LookPath("glslangValidator")
	if err != nil {
		t.Fatal("glslangValidator not found: install it (apt-get install glslang-tools)")
	}
	out := filepath.Join(t.TempDir(), "out.spv")
	cmd := exec.Command(tool, "-V", "--target-env", "vulkan1.2", "--stdin", "-S", "comp", "-o", out)
	cmd.Stdin = strings.NewReader(src)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("glslangValidator: %v\n%s", err, msg)
	}
	spv, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return spv
}

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func bytesOf(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func mustBuffer(t *testing.T, d *Device, size int) *Buffer {
	t.Helper()
	b, err := d.NewBuffer(size)
	if err != nil {
		t.Fatalf("NewBuffer(%d): %v", size, err)
	}
	t.Cleanup(b.Free)
	return b
}

func download(t *testing.T, b *Buffer, n int) []byte {
	t.Helper()
	out := make([]byte, n)
	if err := b.Download(out); err != nil {
		t.Fatalf("Download: %v", err)
	}
	return out
}

func TestDevices(t *testing.T) {
	inst, err := Open()
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer inst.Close()
	devs := inst.Devices()
	if len(devs) == 0 {
		t.Fatal("Open succeeded with no devices")
	}
	sawLavapipe := false
	for k, d := range devs {
		t.Logf("device %d: %+v", k, d)
		if d.Index != k || d.Name == "" || d.QueueFamily < 0 {
			t.Errorf("device %d: bad Index/Name/QueueFamily: %+v", k, d)
		}
		if d.APIVersion&^0xfff < apiVersion12 {
			continue // only 1.2+ devices report the rest reliably
		}
		if d.SubgroupSize == 0 || d.SubgroupSize&(d.SubgroupSize-1) != 0 {
			t.Errorf("device %d: subgroup size %d is not a power of two", k, d.SubgroupSize)
		}
		// Vulkan's required minimums for compute limits.
		if d.MaxWorkgroupInvocations < 128 || d.MaxWorkgroupSize[0] < 128 || d.MaxWorkgroupCount[0] < 65535 ||
			d.MaxSharedMemory < 16384 || d.MaxPushConstantsSize < 128 || d.MaxStorageBufferRange < 1<<27-1 {
			t.Errorf("device %d: limits below the Vulkan minimums: %+v", k, d)
		}
		if d.DriverName == "" {
			t.Errorf("device %d: empty DriverName on a Vulkan 1.2 device", k)
		}
		if d.DriverName != "llvmpipe" {
			continue
		}
		sawLavapipe = true
		// What lavapipe reports under Mesa 22.3 (Debian 12's mesa-vulkan-drivers).
		checks := []struct {
			what string
			ok   bool
		}{
			{"DeviceType cpu", d.DeviceType == "cpu"},
			{"Name llvmpipe*", strings.HasPrefix(d.Name, "llvmpipe")},
			{"VendorID 0x10005 (Mesa)", d.VendorID == 0x10005},
			{"API >= 1.3", d.APIVersion&^0xfff >= apiVersion13},
			{"SubgroupSize 8", d.SubgroupSize == 8},
			{"Min/MaxSubgroupSize 8", d.MinSubgroupSize == 8 && d.MaxSubgroupSize == 8},
			{"subgroup basic/arithmetic/shuffle/vote/ballot", d.SubgroupBasic && d.SubgroupArithmetic && d.SubgroupShuffle && d.SubgroupVote && d.SubgroupBallot},
			{"ShaderFloat16", d.ShaderFloat16},
			{"ShaderInt16", d.ShaderInt16},
			{"ShaderInt8", d.ShaderInt8},
			{"Storage16Bit", d.Storage16Bit},
			{"Storage8Bit", d.Storage8Bit},
			{"MaxSharedMemory 32 KiB", d.MaxSharedMemory == 32768},
			{"MaxStorageBufferRange 128 MiB", d.MaxStorageBufferRange == 128<<20},
			{"TimestampValidBits 64", d.TimestampValidBits == 64},
			{"TimestampPeriod 1 ns", d.TimestampPeriod == 1},
			{"DriverInfo mentions Mesa", strings.Contains(d.DriverInfo, "Mesa")},
		}
		for _, c := range checks {
			if !c.ok {
				t.Errorf("lavapipe: want %s; got %+v", c.what, d)
			}
		}
	}
	if wantLavapipe() && !sawLavapipe {
		t.Fatalf("VK_DRIVER_FILES selects lavapipe but no llvmpipe device was listed: %+v", devs)
	}
}

func TestNoLoader(t *testing.T) {
	saved := loaderNames
	loaderNames = []string{"libvulkan-kgen-test-missing.so.1"}
	defer func() { loaderNames = saved }()
	inst, err := Open()
	if err == nil {
		inst.Close()
		t.Fatal("Open succeeded without a loader")
	}
	if !errors.Is(err, ErrNoLoader) {
		t.Fatalf("error %v does not wrap ErrNoLoader", err)
	}
	if !strings.Contains(err.Error(), "apt-get install libvulkan1 mesa-vulkan-drivers") {
		t.Fatalf("error does not say what to install: %v", err)
	}
}

func TestNoDevice(t *testing.T) {
	// The loader reads the driver list at each vkCreateInstance.
	t.Setenv("VK_DRIVER_FILES", filepath.Join(t.TempDir(), "none.json"))
	inst, err := Open()
	if err == nil {
		inst.Close()
		t.Fatal("Open succeeded with no driver")
	}
	if !errors.Is(err, ErrNoDevice) {
		t.Fatalf("error %v does not wrap ErrNoDevice", err)
	}
	if !strings.Contains(err.Error(), "apt-get install") {
		t.Fatalf("error does not say what to install: %v", err)
	}
}

func TestErrorText(t *testing.T) {
	err := check("vkQueueSubmit", vkErrorDeviceLost)
	if err.Error() != "vkQueueSubmit: VK_ERROR_DEVICE_LOST (-4)" {
		t.Fatalf("got %q", err)
	}
	if !errors.Is(err, ErrDeviceLost) {
		t.Fatal("VK_ERROR_DEVICE_LOST does not match ErrDeviceLost")
	}
	if errors.Is(check("vkAllocateMemory", -2), ErrDeviceLost) {
		t.Fatal("VK_ERROR_OUT_OF_DEVICE_MEMORY matches ErrDeviceLost")
	}
}

func TestUploadDownload(t *testing.T) {
	_, d := openTest(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 3, 4, 4099, 1<<20 + 3} {
		b := mustBuffer(t, d, n)
		if b.Size() != n {
			t.Fatalf("Size() = %d, want %d", b.Size(), n)
		}
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		if err := b.Upload(data); err != nil {
			t.Fatalf("Upload(%d): %v", n, err)
		}
		if got := download(t, b, n); !bytes.Equal(got, data) {
			t.Fatalf("round trip of %d bytes differs", n)
		}
		// Partial download reads the prefix.
		if got := download(t, b, n/2); !bytes.Equal(got, data[:n/2]) {
			t.Fatalf("partial download of %d bytes differs", n/2)
		}
	}
	b := mustBuffer(t, d, 16)
	if err := b.Upload(make([]byte, 17)); err == nil {
		t.Fatal("Upload past the end succeeded")
	}
	if err := b.Download(make([]byte, 17)); err == nil {
		t.Fatal("Download past the end succeeded")
	}
}

// TestChunkedTransfer forces uploads and downloads through a staging buffer
// smaller than the data.
func TestChunkedTransfer(t *testing.T) {
	saved := maxStaging
	maxStaging = 4096
	defer func() { maxStaging = saved }()
	_, d := openTest(t)
	n := 3*4096 + 123
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i * 7)
	}
	b := mustBuffer(t, d, n)
	if err := b.Upload(data); err != nil {
		t.Fatal(err)
	}
	if got := download(t, b, n); !bytes.Equal(got, data) {
		t.Fatal("chunked round trip differs")
	}
	if d.staging == nil || d.staging.size != 4096 {
		t.Fatalf("staging buffer is %+v, want 4096 bytes", d.staging)
	}
}

func TestFill(t *testing.T) {
	_, d := openTest(t)
	b := mustBuffer(t, d, 4000)
	if err := b.Fill(0x7fc00000); err != nil {
		t.Fatal(err)
	}
	for i, w := range u32s(download(t, b, 4000)) {
		if w != 0x7fc00000 || !math.IsNaN(float64(math.Float32frombits(w))) {
			t.Fatalf("word %d = %#x after Fill(NaN)", i, w)
		}
	}
	if err := b.Fill(0); err != nil {
		t.Fatal(err)
	}
	for i, w := range u32s(download(t, b, 4000)) {
		if w != 0 {
			t.Fatalf("word %d = %#x after Fill(0)", i, w)
		}
	}
	// A trailing partial word is left alone.
	odd := mustBuffer(t, d, 10)
	if err := odd.Upload([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}); err != nil {
		t.Fatal(err)
	}
	if err := odd.Fill(0xaabbccdd); err != nil {
		t.Fatal(err)
	}
	want := []byte{0xdd, 0xcc, 0xbb, 0xaa, 0xdd, 0xcc, 0xbb, 0xaa, 9, 10}
	if got := download(t, odd, 10); !bytes.Equal(got, want) {
		t.Fatalf("Fill of a 10-byte buffer: got %v, want %v", got, want)
	}
}

// scaleShader computes y[i] = a[i]*SCALE + c over n uint32 elements, SCALE
// being specialization constant 0 and (c, n) push constants.
const scaleShader = `#version 450
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint SCALE = 1;
layout(push_constant) uniform Push { uint c; uint n; } pc;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer Y { uint y[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < pc.n) y[i] = a[i] * SCALE + pc.c;
}
`

func push2(c, n uint32) []byte { return bytesOf([]uint32{c, n}) }

func TestRunScale(t *testing.T) {
	_, d := openTest(t)
	spv := compileGLSL(t, scaleShader)
	const scale = 2654435761 // wraps mod 2^32 on purpose
	p, err := d.NewPipeline(spv, "main", []SpecConst{{ID: 0, Value: scale}}, 2, 8)
	if err != nil {
		t.Fatalf("NewPipeline: %v", err)
	}
	defer p.Destroy()

	rng := rand.New(rand.NewPCG(3, 4))
	const n = 1000 // not a multiple of the workgroup size
	a := make([]uint32, n)
	for i := range a {
		a[i] = rng.Uint32()
	}
	bufA, bufY, bufZ := mustBuffer(t, d, 4*n), mustBuffer(t, d, 4*n), mustBuffer(t, d, 4*n)
	if err := bufA.Upload(bytesOf(a)); err != nil {
		t.Fatal(err)
	}
	for _, b := range []*Buffer{bufY, bufZ} {
		if err := b.Fill(0x7fc00000); err != nil {
			t.Fatal(err)
		}
	}
	groups := [3]uint32{(n + 63) / 64, 1, 1}

	// One dispatch.
	if err := d.Run(Dispatch{Pipeline: p, Buffers: []*Buffer{bufA, bufY}, Push: push2(12345, n), Groups: groups}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	y := u32s(download(t, bufY, 4*n))
	for i := range a {
		if want := a[i]*scale + 12345; y[i] != want {
			t.Fatalf("y[%d] = %d, want %d", i, y[i], want)
		}
	}

	// Two dependent dispatches in one command buffer: z = (a*S + 7)*S + 9.
	// The second reads what the first wrote, so this fails without the
	// barrier between them (and with per-dispatch push constants mixed up).
	if err := bufY.Fill(0x7fc00000); err != nil {
		t.Fatal(err)
	}
	err = d.Run(
		Dispatch{Pipeline: p, Buffers: []*Buffer{bufA, bufY}, Push: push2(7, n), Groups: groups},
		Dispatch{Pipeline: p, Buffers: []*Buffer{bufY, bufZ}, Push: push2(9, n), Groups: groups},
	)
	if err != nil {
		t.Fatalf("Run(2 dispatches): %v", err)
	}
	z := u32s(download(t, bufZ, 4*n))
	for i := range a {
		if want := (a[i]*scale+7)*scale + 9; z[i] != want {
			t.Fatalf("z[%d] = %d, want %d", i, z[i], want)
		}
	}

	// A second pipeline from the same module with another constant.
	p3, err := d.NewPipeline(spv, "main", []SpecConst{{ID: 0, Value: 3}}, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer p3.Destroy()
	if err := d.Run(Dispatch{Pipeline: p3, Buffers: []*Buffer{bufA, bufY}, Push: push2(1, n), Groups: groups}); err != nil {
		t.Fatal(err)
	}
	y = u32s(download(t, bufY, 4*n))
	for i := range a {
		if want := a[i]*3 + 1; y[i] != want {
			t.Fatalf("SCALE=3: y[%d] = %d, want %d", i, y[i], want)
		}
	}
}

// gemvShader is a small GEMV in the style of the generated kernels: one
// subgroup-sized workgroup per row (local size from spec constant 1),
// float16 weights through 16-bit storage, f32 accumulation, subgroupAdd.
const gemvShader = `#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x_id = 1) in;
layout(push_constant) uniform Push { uint rows; uint cols; } pc;
layout(std430, binding = 0) readonly buffer W { float16_t w[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };
void main() {
	uint row = gl_WorkGroupID.x;
	float acc = 0.0;
	for (uint k = gl_SubgroupInvocationID; k < pc.cols; k += gl_SubgroupSize)
		acc += float(w[row * pc.cols + k]) * x[k];
	acc = subgroupAdd(acc);
	if (subgroupElect()) y[row] = acc;
}
`

func TestRunGEMV(t *testing.T) {
	_, d := openTest(t)
	info := d.Info()
	if !info.Storage16Bit || !info.SubgroupArithmetic {
		t.Fatalf("device lacks 16-bit storage or subgroup arithmetic: %+v", info)
	}
	p, err := d.NewPipeline(compileGLSL(t, gemvShader), "main", []SpecConst{{ID: 1, Value: info.SubgroupSize}}, 3, 8)
	if err != nil {
		t.Fatalf("NewPipeline: %v", err)
	}
	defer p.Destroy()
	const rows, cols = 37, 301
	// Small integers: every partial sum is exact in f32 in any order, so
	// the result must match exactly.
	rng := rand.New(rand.NewPCG(5, 6))
	w := make([]byte, 2*rows*cols)
	wf := make([]float32, rows*cols)
	for i := range wf {
		v := int(rng.IntN(9)) - 4
		wf[i] = float32(v)
		binary.LittleEndian.PutUint16(w[2*i:], f16bits(v))
	}
	x := make([]uint32, cols)
	xf := make([]float32, cols)
	for i := range x {
		xf[i] = float32(int(rng.IntN(9)) - 4)
		x[i] = math.Float32bits(xf[i])
	}
	bw, bx, by := mustBuffer(t, d, len(w)), mustBuffer(t, d, 4*cols), mustBuffer(t, d, 4*rows)
	if err := bw.Upload(w); err != nil {
		t.Fatal(err)
	}
	if err := bx.Upload(bytesOf(x)); err != nil {
		t.Fatal(err)
	}
	if err := by.Fill(0x7fc00000); err != nil {
		t.Fatal(err)
	}
	if err := d.Run(Dispatch{Pipeline: p, Buffers: []*Buffer{bw, bx, by}, Push: push2(rows, cols), Groups: [3]uint32{rows, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	y := u32s(download(t, by, 4*rows))
	for r := 0; r < rows; r++ {
		var want float32
		for k := 0; k < cols; k++ {
			want += wf[r*cols+k] * xf[k]
		}
		if got := math.Float32frombits(y[r]); got != want {
			t.Fatalf("y[%d] = %v, want %v", r, got, want)
		}
	}
}

// f16bits encodes a small integer (|v| <= 2048) as IEEE half precision.
func f16bits(v int) uint16 {
	if v == 0 {
		return 0
	}
	var sign uint16
	if v < 0 {
		sign, v = 0x8000, -v
	}
	e := 0
	for 1<<(e+1) <= v {
		e++
	}
	mant := uint16((v << 10 >> e) & 0x3ff)
	return sign | uint16(e+15)<<10 | mant
}

func TestTime(t *testing.T) {
	_, d := openTest(t)
	p, err := d.NewPipeline(compileGLSL(t, scaleShader), "main", []SpecConst{{0, 3}}, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Destroy()
	const n = 1 << 16
	a, y := mustBuffer(t, d, 4*n), mustBuffer(t, d, 4*n)
	if err := a.Fill(5); err != nil {
		t.Fatal(err)
	}
	ds := []Dispatch{{Pipeline: p, Buffers: []*Buffer{a, y}, Push: push2(1, n), Groups: [3]uint32{n / 64, 1, 1}}}
	ns, err := d.Time(ds, 5)
	if err != nil {
		t.Fatalf("Time: %v", err)
	}
	if len(ns) != 5 {
		t.Fatalf("Time returned %d values, want 5", len(ns))
	}
	for i, v := range ns {
		// Positive, and below a second (lavapipe takes about 1 ms).
		if !(v > 0 && v < 1e9) {
			t.Fatalf("repetition %d took %v ns", i, v)
		}
	}
	t.Logf("64Ki-element scale: %v ns", ns)
	for i, w := range u32s(download(t, y, 4*n)) {
		if w != 16 {
			t.Fatalf("after Time: y[%d] = %d, want 16", i, w)
		}
	}
	if _, err := d.Time(ds, 0); err == nil {
		t.Fatal("Time with 0 reps succeeded")
	}
}

// TestTimeHost: host wall clock per submitted command buffer of repeated
// dispatches on the same buffers (gen bench --timing ggml).
func TestTimeHost(t *testing.T) {
	_, d := openTest(t)
	p, err := d.NewPipeline(compileGLSL(t, scaleShader), "main", []SpecConst{{0, 3}}, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Destroy()
	const n = 1 << 12
	a, y := mustBuffer(t, d, 4*n), mustBuffer(t, d, 4*n)
	if err := a.Fill(5); err != nil {
		t.Fatal(err)
	}
	x := Dispatch{Pipeline: p, Buffers: []*Buffer{a, y}, Push: push2(1, n), Groups: [3]uint32{n / 64, 1, 1}}
	ns, err := d.TimeHost([]Dispatch{x, x, x, x}, 3)
	if err != nil {
		t.Fatalf("TimeHost: %v", err)
	}
	if len(ns) != 3 {
		t.Fatalf("TimeHost returned %d values, want 3", len(ns))
	}
	for i, v := range ns {
		if !(v > 0 && v < 1e9) {
			t.Fatalf("submission %d took %v ns", i, v)
		}
	}
	for i, w := range u32s(download(t, y, 4*n)) {
		if w != 16 {
			t.Fatalf("after TimeHost: y[%d] = %d, want 16", i, w)
		}
	}
	if _, err := d.TimeHost([]Dispatch{x}, 0); err == nil {
		t.Fatal("TimeHost with 0 reps succeeded")
	}
}

func TestInvalidUse(t *testing.T) {
	_, d := openTest(t)
	spv := compileGLSL(t, scaleShader)
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"odd size":  spv[:len(spv)-1],
		"bad magic": append([]byte{1, 2, 3, 4}, spv[4:]...),
	} {
		if _, err := d.NewPipeline(bad, "main", nil, 2, 8); err == nil {
			t.Errorf("NewPipeline(%s) succeeded", name)
		}
	}
	if _, err := d.NewPipeline(spv, "main", nil, 2, 6); err == nil {
		t.Error("push size 6 accepted")
	}
	if _, err := d.NewBuffer(0); err == nil {
		t.Error("NewBuffer(0) succeeded")
	}
	p, err := d.NewPipeline(spv, "main", nil, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	a, y := mustBuffer(t, d, 256), mustBuffer(t, d, 256)
	ok := Dispatch{Pipeline: p, Buffers: []*Buffer{a, y}, Push: push2(0, 64), Groups: [3]uint32{1, 1, 1}}
	if err := d.Run(ok); err != nil {
		t.Fatal(err)
	}
	max := d.Info().MaxWorkgroupCount
	cases := map[string]Dispatch{
		"too many groups": {Pipeline: p, Buffers: ok.Buffers, Push: ok.Push, Groups: [3]uint32{max[0] + 1, 1, 1}},
		"groups z":        {Pipeline: p, Buffers: ok.Buffers, Push: ok.Push, Groups: [3]uint32{1, 1, max[2] + 1}},
		"short push":      {Pipeline: p, Buffers: ok.Buffers, Push: ok.Push[:4], Groups: ok.Groups},
		"one buffer":      {Pipeline: p, Buffers: ok.Buffers[:1], Push: ok.Push, Groups: ok.Groups},
		"nil buffer":      {Pipeline: p, Buffers: []*Buffer{a, nil}, Push: ok.Push, Groups: ok.Groups},
		"nil pipeline":    {Buffers: ok.Buffers, Push: ok.Push, Groups: ok.Groups},
	}
	for name, ds := range cases {
		if err := d.Run(ds); err == nil {
			t.Errorf("Run(%s) succeeded", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	// The device still works after rejected calls.
	if err := d.Run(ok); err != nil {
		t.Fatal(err)
	}
	y.Free()
	y.Free() // twice is harmless
	if err := d.Run(ok); err == nil {
		t.Error("Run with a freed buffer succeeded")
	}
	if err := y.Upload([]byte{1}); err == nil {
		t.Error("Upload to a freed buffer succeeded")
	}
	p.Destroy()
	p.Destroy()
	if err := d.Run(Dispatch{Pipeline: p, Buffers: []*Buffer{a, a}, Push: ok.Push, Groups: ok.Groups}); err == nil {
		t.Error("Run with a destroyed pipeline succeeded")
	}
}

// TestConcurrentRuns drives one Device from several goroutines.
func TestConcurrentRuns(t *testing.T) {
	_, d := openTest(t)
	p, err := d.NewPipeline(compileGLSL(t, scaleShader), "main", []SpecConst{{0, 5}}, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Destroy()
	const n = 4096
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		a, y := mustBuffer(t, d, 4*n), mustBuffer(t, d, 4*n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range 10 {
				c := uint32(100*g + it)
				if err := a.Fill(uint32(g)); err != nil {
					errs <- err
					return
				}
				if err := d.Run(Dispatch{Pipeline: p, Buffers: []*Buffer{a, y}, Push: push2(c, n), Groups: [3]uint32{n / 64, 1, 1}}); err != nil {
					errs <- err
					return
				}
				out := make([]byte, 4*n)
				if err := y.Download(out); err != nil {
					errs <- err
					return
				}
				for i, w := range u32s(out) {
					if w != uint32(g)*5+c {
						errs <- fmt.Errorf("goroutine %d, iteration %d: y[%d] = %d, want %d", g, it, i, w, uint32(g)*5+c)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCloseOrder(t *testing.T) {
	inst, d := openTest(t)
	b := mustBuffer(t, d, 64)
	p, err := d.NewPipeline(compileGLSL(t, scaleShader), "main", nil, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	// Closing the instance closes the device and frees what it owns; later
	// Free/Destroy/Close calls are no-ops and other calls fail cleanly.
	inst.Close()
	b.Free()
	p.Destroy()
	d.Close()
	inst.Close()
	if err := b.Upload([]byte{1}); err == nil {
		t.Error("Upload after Close succeeded")
	}
	if _, err := d.NewBuffer(4); err == nil {
		t.Error("NewBuffer after Close succeeded")
	}
	if _, err := inst.OpenDevice(0); err == nil {
		t.Error("OpenDevice after Close succeeded")
	}
}
