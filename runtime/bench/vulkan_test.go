package bench

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/ref"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// contractPipes builds pipelines from the planned launch alone, as
// verify.VulkanRunner does: a binding per buffer, the Vulkan arguments as
// push constants, the workgroup size into the contract's workgroup
// parameter.
type contractPipes struct {
	d    *vulkan.Device
	dev  kruntime.Device
	pipe map[string]*vulkan.Pipeline
}

func (p *contractPipes) Device() kruntime.Device { return p.dev }

func (p *contractPipes) Pipeline(l *kruntime.Launch) (*vulkan.Pipeline, error) {
	v := l.Variant
	key := fmt.Sprintf("%s wg%d", v.Key(), l.Workgroup)
	if pl := p.pipe[key]; pl != nil {
		return pl, nil
	}
	fam, err := kruntime.Contract(v.Family)
	if err != nil {
		return nil, err
	}
	blob, err := kruntime.SPIRV(v)
	if err != nil {
		return nil, err
	}
	var spec []vulkan.SpecConst
	for _, sc := range v.Spec {
		val := sc.Value
		if sc.Param == fam.Launch.WorkgroupParam {
			val = uint32(l.Workgroup)
		}
		spec = append(spec, vulkan.SpecConst{ID: sc.ID, Value: val})
	}
	pl, err := p.d.NewPipeline(blob, "main", spec, len(l.Buffers), len(l.Push()))
	if err != nil {
		return nil, err
	}
	p.pipe[key] = pl
	return pl, nil
}

func openLavapipe(t *testing.T) (*vulkan.Device, *contractPipes) {
	t.Helper()
	inst, err := vulkan.Open()
	if err != nil {
		t.Fatalf("vulkan.Open: %v (the tests need lavapipe: make deps)", err)
	}
	t.Cleanup(inst.Close)
	index := -1
	for _, info := range inst.Devices() {
		if info.DriverName == "llvmpipe" {
			index = info.Index
		}
	}
	if index < 0 {
		t.Fatal("no lavapipe (llvmpipe) device: make deps")
	}
	d, err := inst.OpenDevice(index)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	dev, err := kruntime.VulkanDevice(d.Info())
	if err != nil {
		t.Fatal(err)
	}
	p := &contractPipes{d: d, dev: dev, pipe: map[string]*vulkan.Pipeline{}}
	t.Cleanup(func() {
		for _, pl := range p.pipe {
			pl.Destroy()
		}
	})
	return d, p
}

func download(t *testing.T, b *vulkan.Buffer, n int) []byte {
	t.Helper()
	out := make([]byte, b.Size())
	if err := b.Download(out); err != nil {
		t.Fatal(err)
	}
	return out[:n]
}

// TestVulkanTimerOnLavapipe times a quantizer and a GEMV op with the one
// Vulkan timer, then checks that every copy's dispatch computed its own
// output from its own inputs (bindings, push constants and rotation right).
func TestVulkanTimerOnLavapipe(t *testing.T) {
	d, pipes := openLavapipe(t)
	dev := pipes.Device()
	tm := &VulkanTimer{Dev: d, R: pipes, Reps: 2, Rng: rand.New(rand.NewPCG(3, 4)), RotateBytes: 64 << 10}
	defer tm.Close()

	qc := QuantCase{Family: "quant_q8_1", Rows: 3, K: 1000, Dtype: "f32"}
	qr, err := RunQuant(tm, dev, qc, nil)
	if err != nil {
		t.Fatal(err)
	}
	in, out := int64(3*1000*4), int64(3*32*36)
	copies := int((64<<10 + in + out - 1) / (in + out))
	if qr.InputBytes != in || qr.OutputBytes != out || qr.RotatedBytes != int64(copies)*(in+out) || tm.pool.n != copies || copies < 2 {
		t.Errorf("bytes %d + %d, rotated %d over %d copies", qr.InputBytes, qr.OutputBytes, qr.RotatedBytes, tm.pool.n)
	}
	// five tiles: thread, lane, sg, multi, wg
	if len(qr.TileUS) != 5 || qr.Candidates != 5 || qr.ThreadUS <= 0 || qr.BestUS <= 0 || qr.Baseline != "quant_q8_1_f32_thread" {
		t.Errorf("%+v", qr)
	}
	for i := 0; i < copies; i++ {
		bs := tm.pool.buffers(i)
		xb, y := download(t, bs[0], int(in)), download(t, bs[1], int(out))
		for r := 0; r < qc.Rows; r++ {
			x := make([]float32, qc.K)
			for k := range x {
				x[k] = math.Float32frombits(binary.LittleEndian.Uint32(xb[4*(r*qc.K+k):]))
			}
			want := ref.QuantizeQ8_1(x, qc.K)
			if got := y[r*len(want) : (r+1)*len(want)]; string(got) != string(want) {
				t.Fatalf("copy %d row %d: Y differs from the reference at byte %d", i, r, ref.FirstByteMismatch(got, want))
			}
		}
	}

	gc := Case{Family: "gemv", Model: "m", Layer: "l", N: 37, K: 256, M: 2, Dtype: "f32"}
	gr, err := Run(tm, dev, gc, nil)
	if err != nil {
		t.Fatal(err)
	}
	per := int64(37*256*4 + 2*256*4 + 2*37*4)
	if gr.WeightBytes != 37*256*4 || gr.Bytes != per || gr.Candidates < 2 || gr.TunedUS <= 0 || gr.RotatedBytes != int64(tm.pool.n)*per {
		t.Errorf("%+v", gr)
	}
	f32s := func(b []byte) []float32 {
		out := make([]float32, len(b)/4)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return out
	}
	for i := 0; i < tm.pool.n; i++ {
		bs := tm.pool.buffers(i)
		w, x, y := f32s(download(t, bs[0], 37*256*4)), f32s(download(t, bs[1], 2*256*4)), f32s(download(t, bs[3], 2*37*4))
		want := ref.Gemv(w, x, nil, 2, 37, 256)
		if e := ref.RelL2Mag(y, want, ref.GemvAbs(w, x, nil, 2, 37, 256)); !(e < 1e-5) {
			t.Fatalf("copy %d: relative error %g", i, e)
		}
	}
}

// TestGGMLRuns: test-backend-ops' repeat counts for ggml's quantized
// shape (4096 x 14336: 852 at n = 1, 107 at n = 8) and its cap.
func TestGGMLRuns(t *testing.T) {
	for _, c := range []struct {
		op    kruntime.Op
		bytes int64
		want  int
	}{
		{kruntime.Op{Family: "mmvq", M: 1, N: 4096, K: 14336}, 0, 852},
		{kruntime.Op{Family: "mmvq", M: 4, N: 4096, K: 14336}, 0, 213},
		{kruntime.Op{Family: "mmvq", M: 8, N: 4096, K: 14336}, 0, 107},
		{kruntime.Op{Family: "gemv", M: 1, N: 64, K: 64}, 0, 8192},
		{kruntime.Op{Family: "quant_q8_1", M: 1, K: 4096}, 1 << 30, 33},
	} {
		if got := GGMLRuns(c.op, c.bytes); got != c.want {
			t.Errorf("%v: %d, want %d", c.op, got, c.want)
		}
	}
}

// TestVulkanTimerGGMLOnLavapipe: under TimingGGML the timer holds one copy
// of each buffer, repeats the dispatch (MaxRuns here), records it, and a
// pair's producer still feeds the repeated consumer (its output checked
// against the reference after the timing).
func TestVulkanTimerGGMLOnLavapipe(t *testing.T) {
	t.Setenv(kruntime.TuneCacheEnv, "off")
	d, pipes := openLavapipe(t)
	dev := pipes.Device()
	tm := &VulkanTimer{Dev: d, R: pipes, Reps: 2, Rng: rand.New(rand.NewPCG(3, 4)), Timing: TimingGGML, MaxRuns: 3}
	defer tm.Close()
	c := Case{Family: "mmvq", Model: "m", Layer: "l", N: 37, K: 256, M: 2, Dtype: "q8_0"}
	m, err := Measure(tm, dev, c.Op(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := c.result(m)
	if tm.pool.n != 1 || r.Dispatches != 3 || r.RotatedBytes != r.Bytes || r.TunedUS <= 0 {
		t.Errorf("copies %d, dispatches %d, rotated %d of %d bytes, %g us", tm.pool.n, r.Dispatches, r.RotatedBytes, r.Bytes, r.TunedUS)
	}
	p, err := MeasurePair(tm, dev, m, "f32")
	if err != nil {
		t.Fatal(err)
	}
	if p.Skipped != "" || p.US <= 0 || p.ProducerUS <= 0 {
		t.Fatalf("%+v", p)
	}
	// The chain's last pass left the quantizer's Q8_1 of the f32 input in X
	// (consumer buffer 1) and the GEMV of it in Y (buffer 2).
	bs := tm.pool.buffers(0)
	in := download(t, bs[5], 2*256*4)
	x := make([]float32, 2*256)
	for k := range x {
		x[k] = math.Float32frombits(binary.LittleEndian.Uint32(in[4*k:]))
	}
	var want []byte
	for row := 0; row < 2; row++ {
		want = append(want, ref.QuantizeQ8_1(x[row*256:(row+1)*256], 256)...)
	}
	if got := download(t, bs[1], len(want)); string(got) != string(want) {
		t.Fatalf("X differs from the quantizer's reference at byte %d", ref.FirstByteMismatch(got, want))
	}
}

// buildLog is contractPipes noting each call: "build" when the pipeline
// is new, "hit" when it was built before.
type buildLog struct {
	*contractPipes
	calls []string
}

func (b *buildLog) Pipeline(l *kruntime.Launch) (*vulkan.Pipeline, error) {
	n := len(b.pipe)
	p, err := b.contractPipes.Pipeline(l)
	if len(b.pipe) > n {
		b.calls = append(b.calls, "build")
	} else {
		b.calls = append(b.calls, "hit")
	}
	return p, err
}

// TestVulkanTimerBuildsFirst: tuned through runtime.TuneRounds, the Vulkan
// timer builds every candidate's pipeline before it times any (with a
// cold shader cache, NVIDIA's driver ran pipelines timed as each was built
// 2-5x slow: run h100-2026-12-06k).
func TestVulkanTimerBuildsFirst(t *testing.T) {
	d, pipes := openLavapipe(t)
	log := &buildLog{contractPipes: pipes}
	tm := &VulkanTimer{Dev: d, R: log, Reps: 1, Rng: rand.New(rand.NewPCG(3, 4)), RotateBytes: 64 << 10}
	defer tm.Close()
	op := kruntime.Op{Family: "gemv", Dtype: "f32", M: 2, N: 37, K: 256}
	res, err := kruntime.TuneRounds(tm, pipes.Device(), []kruntime.Op{op}, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := res[0].Timed
	if n < 2 || len(log.calls) != 2*n {
		t.Fatalf("%d candidates, pipeline calls %v: want %d builds, then a hit per timing", n, log.calls, n)
	}
	for i, c := range log.calls {
		if want := map[bool]string{true: "build", false: "hit"}[i < n]; c != want {
			t.Fatalf("pipeline call %d is a %s, want %s: %v", i, c, want, log.calls)
		}
	}
}
