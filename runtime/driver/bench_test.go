package driver_test

import (
	"fmt"
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

// planChecker emulates every kernel of the given families on sm90 by
// checking its launch against runtime.Plan: grid, block, one pointer per
// contract buffer (each inside an allocation of at least its planned
// size) and the HIP arguments in contract order. It records the first
// buffer of each launch, to see the rotation.
type planChecker struct {
	t    *testing.T
	dev  kruntime.Device
	mu   sync.Mutex
	seen map[driver.Ptr]bool
	runs int
}

func (pc *planChecker) defs(families ...string) (map[string]driver.FakeKernelDef, map[string][]string) {
	defs := map[string]driver.FakeKernelDef{}
	images := map[string][]string{}
	for i := range generated.Variants {
		v := &generated.Variants[i]
		if v.Backend != "hip" || v.Arch != "sm90" || !contains(families, v.Family) {
			continue
		}
		fam, err := kruntime.Contract(v.Family)
		if err != nil {
			pc.t.Fatal(err)
		}
		nbuf, nargs := len(fam.Launch.Buffers), 0
		for _, a := range fam.Launch.Args {
			if a.Backend == "" || a.Backend == "hip" {
				nargs++
			}
		}
		images[v.Family] = append(images[v.Family], v.Name)
		defs[v.Name] = driver.FakeKernelDef{Args: nbuf + nargs, Run: func(grid, block [3]uint32, args []unsafe.Pointer, mem func(driver.Ptr, int) []byte) int32 {
			op := kruntime.Op{Family: v.Family, Dtype: v.Param("dtype"), N: 1}
			ints := make([]uint32, nargs)
			for i := range ints {
				ints[i] = *(*uint32)(args[nbuf+i])
			}
			// The op from the arguments (T/rows, N, K by name).
			l0, err := kruntime.Plan(v, pc.dev, kruntime.Op{Family: v.Family, Dtype: op.Dtype, M: 1, N: 1, K: 4096})
			if err != nil {
				pc.t.Errorf("%s: %v", v.Name, err)
				return 1
			}
			for i, name := range l0.ArgNames {
				switch name {
				case "T", "rows":
					op.M = int(ints[i])
				case "N":
					op.N = int(ints[i])
				case "K":
					op.K = int(ints[i])
				}
			}
			l, err := kruntime.Plan(v, pc.dev, op)
			if err != nil {
				pc.t.Errorf("%s: %v", v.Name, err)
				return 1
			}
			if grid != l.Groups || block != [3]uint32{uint32(l.Workgroup), 1, 1} {
				pc.t.Errorf("%s %v: grid %v block %v, want %v %d", v.Name, op, grid, block, l.Groups, l.Workgroup)
				return 1
			}
			for i, a := range l.Args {
				if ints[i] != a {
					pc.t.Errorf("%s %v: argument %s is %d, want %d", v.Name, op, l.ArgNames[i], ints[i], a)
					return 1
				}
			}
			for i, b := range l.Buffers {
				p := *(*driver.Ptr)(args[i])
				if mem(p, max(b.Size, 1)) == nil {
					pc.t.Errorf("%s %v: buffer %s at %#x is not %d bytes of an allocation", v.Name, op, b.Name, p, b.Size)
					return 1
				}
			}
			pc.mu.Lock()
			pc.seen[*(*driver.Ptr)(args[0])] = true
			pc.runs++
			pc.mu.Unlock()
			return 0
		}}
	}
	return defs, images
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func fakeBench(t *testing.T, families ...string) (*driver.Context, *driver.Modules, kruntime.Device, *planChecker) {
	t.Helper()
	dev, err := kruntime.ArchDevice("sm90")
	if err != nil {
		t.Fatal(err)
	}
	pc := &planChecker{t: t, dev: dev, seen: map[driver.Ptr]bool{}}
	defs, images := pc.defs(families...)
	ctx, err := driver.OpenFake(driver.CUDA, 32, defs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctx.Close)
	var imgs []driver.Image
	for _, f := range families { // modules per family, each under the fake's 4 KiB image
		var part []string
		for i, name := range images[f] {
			part = append(part, name)
			if i == len(images[f])-1 || len(strings.Join(part, " "))+1+len(images[f][i+1]) >= 4000 {
				imgs = append(imgs, driver.Image{Name: fmt.Sprintf("%s_%d.cubin", f, len(imgs)), Data: []byte(strings.Join(part, " "))})
				part = nil
			}
		}
	}
	mods, err := ctx.LoadModules(imgs...)
	if err != nil {
		t.Fatal(err)
	}
	info := ctx.Info()
	dev.Name, dev.Driver, dev.ComputeUnits, dev.MaxWorkgroup = info.Name, info.DriverString(), info.ComputeUnits, info.MaxThreadsPerBlock
	pc.dev = dev
	return ctx, mods, dev, pc
}

// TestBenchQuantOnFake times the quantizer tiles of sm90 with bench.Runner
// on the fake driver, from two modules (one per family), eager and graph:
// every launch's geometry and arguments are checked against runtime.Plan,
// every rotated copy is launched on, and each tile's time is recorded.
func TestBenchQuantOnFake(t *testing.T) {
	for _, mode := range bench.LaunchModes {
		t.Run(string(mode), func(t *testing.T) {
			const rotate = 1 << 20
			ctx, mods, dev, pc := fakeBench(t, "quant_q8k", "quant_q8_1")
			r := &bench.Runner{Ctx: ctx, Mod: mods, Dev: dev, Reps: 3, Rng: rand.New(rand.NewPCG(1, 2)), RotateBytes: rotate, Launch: mode}
			defer r.Close()
			suite := &bench.QuantSuite{Rows: []int{1, 8}, K: []int{4096}}
			for _, c := range suite.Cases([]string{"quant_q8k", "quant_q8_1"}, []string{"f32", "bf16"}) {
				pc.seen = map[driver.Ptr]bool{}
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
				copies := min(int((rotate+in+out-1)/(in+out)), 64) // every copy is launched on
				if res.RotatedBytes != int64(copies)*(in+out) || len(pc.seen) != copies {
					t.Errorf("%+v: rotated %d bytes over %d inputs, want %d copies of %d", c, res.RotatedBytes, len(pc.seen), copies, in+out)
				}
				// tiles (quant_q8_1 has the lane tile beside thread, sg,
				// multi, wg); 16-bit input adds three in two passes (_sb2)
				// for both families
				tiles := map[string]int{"quant_q8k": 4, "quant_q8_1": 5}[c.Family]
				cands := tiles
				if dt == 2 {
					cands += 3
				}
				if len(res.TileUS) != tiles || res.Candidates != cands || len(res.Times) != cands {
					t.Errorf("%+v: tiles %v times %v", c, res.TileUS, res.Times)
				}
				// The fake's clock advances 500 us per launch.
				for tile, us := range res.TileUS {
					if us != 500 {
						t.Errorf("%+v: %s at %g us, want 500", c, tile, us)
					}
				}
				if res.ThreadUS != 500 || res.Baseline != c.Family+"_"+c.Dtype+"_thread" || res.BestTile == "thread" || res.BestTile == "" || res.Speedup != 1 || res.BestGBps <= 0 {
					t.Errorf("%+v: %+v", c, res)
				}
				if res.Times[res.Heuristic] != res.HeuristicUS || !strings.HasPrefix(res.Heuristic, c.Family+"_"+c.Dtype+"_") {
					t.Errorf("%+v: heuristic %s", c, res.Heuristic)
				}
			}
			// One K that is not a multiple of 256: Q8_K refuses it before
			// anything is launched, Q8_1 pads.
			runs := pc.runs
			if _, err := bench.RunQuant(r, dev, bench.QuantCase{Family: "quant_q8k", Rows: 1, K: 1000, Dtype: "f32"}, nil); err == nil || pc.runs != runs {
				t.Errorf("quant_q8k k=1000: %v after %d launches", err, pc.runs-runs)
			} else if why, ok := bench.NotEligible(err); !ok || !strings.Contains(why, "256-element superblocks") {
				t.Errorf("quant_q8k k=1000: %v", err)
			}
			if res, err := bench.RunQuant(r, dev, bench.QuantCase{Family: "quant_q8_1", Rows: 1, K: 1000, Dtype: "f32"}, nil); err != nil || res.OutputBytes != 32*36 {
				t.Errorf("quant_q8_1 k=1000: %v", err)
			}
		})
	}
}

// TestBenchGEMVOnFake: the same Runner times GEMV candidates, the weights
// (and every other in and out buffer) rotated, the weights kept across
// the token counts of one layer.
func TestBenchGEMVOnFake(t *testing.T) {
	ctx, mods, dev, pc := fakeBench(t, "gemv")
	const rotate = 8 << 20
	r := &bench.Runner{Ctx: ctx, Mod: mods, Dev: dev, Reps: 2, Rng: rand.New(rand.NewPCG(1, 2)), RotateBytes: rotate}
	defer r.Close()
	var firstW map[driver.Ptr]bool
	for _, m := range []int{1, 2} {
		pc.seen = map[driver.Ptr]bool{}
		c := bench.Case{Family: "gemv", Model: "m", Layer: "l", N: 1024, K: 1024, M: m, Dtype: "bf16"}
		res, err := bench.Run(r, dev, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		per := int64(1024*1024*2 + m*1024*2 + m*1024*4)
		copies := int((rotate + per - 1) / per)
		if res.WeightBytes != 1024*1024*2 || res.Bytes != per || res.RotatedBytes != int64(copies)*per || len(pc.seen) != copies {
			t.Errorf("m=%d: weight bytes %d, bytes %d, rotated %d over %d weight copies (want %d)", m, res.WeightBytes, res.Bytes, res.RotatedBytes, len(pc.seen), copies)
		}
		if res.Candidates < 2 || len(res.Times) != res.Candidates || res.TunedUS != 500 || res.Family != "gemv" {
			t.Errorf("m=%d: %+v", m, res)
		}
		if firstW == nil {
			firstW = pc.seen
			continue
		}
		for p := range pc.seen {
			if !firstW[p] {
				t.Errorf("m=%d: weights at %#x are new: not kept across token counts", m, p)
			}
		}
	}
}
