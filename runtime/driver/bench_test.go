package driver_test

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/bench"
	"github.com/kgen-dev/kgen/runtime/driver"
)

// TestBenchQuantOnFake times the quantizer tiles of sm90 with bench.Runner
// on the fake driver, from two modules (one per family): every launch's
// geometry and arguments are checked, inputs rotate over every slot of a
// pool of at least RotateBytes, and each tile's time is recorded.
func TestBenchQuantOnFake(t *testing.T) {
	dev, err := kruntime.ArchDevice("sm90")
	if err != nil {
		t.Fatal(err)
	}
	const rotate = 1 << 20
	var mu sync.Mutex
	seen := map[driver.Ptr]bool{}
	defs := map[string]driver.FakeKernelDef{}
	images := map[string][]string{}
	for _, v := range generated.Variants {
		if v.Backend != "hip" || v.Arch != "sm90" || !kruntime.IsQuant(v.Family) {
			continue
		}
		images[v.Family] = append(images[v.Family], v.Name)
		defs[v.Name] = driver.FakeKernelDef{Args: 5, Run: func(grid, block [3]uint32, args []unsafe.Pointer, mem func(driver.Ptr, int) []byte) int32 {
			x, y := *(*driver.Ptr)(args[0]), *(*driver.Ptr)(args[1])
			rows, K, gx := int(*(*int32)(args[2])), int(*(*int32)(args[3])), *(*int32)(args[4])
			l, err := kruntime.PlanQuant(&v, dev, rows, K)
			if err != nil {
				t.Errorf("%s: %v", v.Name, err)
				return 1
			}
			if grid != l.Groups || block != [3]uint32{uint32(l.Workgroup), 1, 1} || gx != int32(l.Groups[0]) {
				t.Errorf("%s rows=%d K=%d: grid %v block %v gx %d, want %v %d", v.Name, rows, K, grid, block, gx, l.Groups, l.Workgroup)
				return 1
			}
			if mem(x, l.XBytes) == nil || mem(y, l.YBytes) == nil || x%256 != 0 || y%256 != 0 {
				t.Errorf("%s: X %#x or Y %#x outside the pools or unaligned", v.Name, x, y)
				return 1
			}
			mu.Lock()
			seen[x] = true
			mu.Unlock()
			return 0
		}}
	}
	ctx, err := driver.OpenFake(driver.CUDA, 32, defs)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	mods, err := ctx.LoadModules(driver.Image{Name: "q8k.cubin", Data: []byte(strings.Join(images["quant_q8k"], " "))},
		driver.Image{Name: "q81.cubin", Data: []byte(strings.Join(images["quant_q8_1"], " "))})
	if err != nil {
		t.Fatal(err)
	}
	info := ctx.Info()
	dev.Name, dev.Driver, dev.ComputeUnits, dev.MaxWorkgroup = info.Name, info.DriverString(), info.ComputeUnits, info.MaxThreadsPerBlock
	r := &bench.Runner{Ctx: ctx, Mod: mods, Dev: dev, Reps: 3, Rng: rand.New(rand.NewPCG(1, 2)), RotateBytes: rotate}
	defer r.Close()
	suite := &bench.QuantSuite{Rows: []int{1, 8}, K: []int{4096}}
	for _, c := range suite.Cases([]string{"quant_q8k", "quant_q8_1"}, []string{"f32", "bf16"}) {
		seen = map[driver.Ptr]bool{}
		res, err := bench.RunQuant(r, dev, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		dt := map[string]int{"f32": 4, "bf16": 2}[c.Dtype]
		f := map[string][2]int{"quant_q8k": {256, 292}, "quant_q8_1": {32, 36}}[c.Family] // block elements, bytes
		in, out := int64(c.Rows*c.K*dt), int64(c.Rows*c.K/f[0]*f[1])
		if res.InputBytes != in || res.OutputBytes != out || res.Bytes != in+out {
			t.Errorf("%+v: bytes %d + %d, want %d + %d", c, res.InputBytes, res.OutputBytes, in, out)
		}
		stride := int(in+255) &^ 255
		slots := (rotate + stride - 1) / stride // every slot is launched on (slots <= 1024 launches per repetition)
		if res.RotatedBytes != int64(slots*stride) || len(seen) != slots {
			t.Errorf("%+v: rotated %d bytes over %d input slots, want >= %d bytes over %d", c, res.RotatedBytes, len(seen), rotate, slots)
		}
		if len(res.TileUS) != 4 || res.Candidates != 4 || len(res.Times) != 4 {
			t.Errorf("%+v: tiles %v times %v", c, res.TileUS, res.Times)
		}
		// The fake's clock advances 500 us per launch.
		for tile, us := range res.TileUS {
			if us != 500 {
				t.Errorf("%+v: %s at %g us, want 500", c, tile, us)
			}
		}
		if res.ThreadUS != 500 || res.BestTile == "thread" || res.BestTile == "" || res.Speedup != 1 || res.BestGBps <= 0 {
			t.Errorf("%+v: %+v", c, res)
		}
		if res.Times[res.Heuristic] != res.HeuristicUS || !strings.HasPrefix(res.Heuristic, c.Family+"_"+c.Dtype+"_") {
			t.Errorf("%+v: heuristic %s", c, res.Heuristic)
		}
	}
}
