package bench

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"

	"github.com/goccy/go-yaml"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/driver"
	"github.com/kgen-dev/kgen/runtime/ref"
	"github.com/kgen-dev/kgen/runtime/table"
)

// QuantSuite is a quant-shapes.yaml file (bench/quant-shapes.yaml): every
// pair of rows (the op's m: tokens, or tokens x top_k for MoE) and k
// (elements per row) is a case, for each quantizer family and dtype.
type QuantSuite struct {
	Rows []int `yaml:"rows"`
	K    []int `yaml:"k"`
}

// LoadQuantSuite reads a quantizer shape file; unknown keys, and empty or
// non-positive lists, are errors.
func LoadQuantSuite(path string) (*QuantSuite, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s QuantSuite
	if err := yaml.UnmarshalWithOptions(b, &s, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for name, l := range map[string][]int{"rows": s.Rows, "k": s.K} {
		if len(l) == 0 {
			return nil, fmt.Errorf("%s: %s: give at least one value", path, name)
		}
		for _, v := range l {
			if v < 1 {
				return nil, fmt.Errorf("%s: %s: %d is not positive", path, name, v)
			}
		}
	}
	return &s, nil
}

// QuantCase is one quantizer shape to time.
type QuantCase struct {
	Family string `json:"family"`
	Rows   int    `json:"rows"`
	K      int    `json:"k"`
	Dtype  string `json:"dtype"`
}

func (c QuantCase) op() kruntime.Op {
	return kruntime.Op{Family: c.Family, Dtype: c.Dtype, M: c.Rows, N: 1, K: c.K}
}

// Cases expands the suite: families, then dtypes, then k, then rows.
func (s *QuantSuite) Cases(families, dtypes []string) []QuantCase {
	var out []QuantCase
	for _, f := range families {
		for _, d := range dtypes {
			for _, k := range s.K {
				for _, r := range s.Rows {
					out = append(out, QuantCase{Family: f, Rows: r, K: k, Dtype: d})
				}
			}
		}
	}
	return out
}

// QuantResult is one timed quantizer case.
type QuantResult struct {
	QuantCase
	InputBytes  int64 `json:"input_bytes"`  // rows x K elements read
	OutputBytes int64 `json:"output_bytes"` // blocks written
	Bytes       int64 `json:"bytes"`        // input + output
	// RotatedBytes is the input the timed launches rotate over: at least
	// 512 MiB on CUDA, so no launch's input is still in L2.
	RotatedBytes int64   `json:"rotated_bytes"`
	Heuristic    string  `json:"heuristic"`
	HeuristicUS  float64 `json:"heuristic_us"`
	Tuned        string  `json:"tuned"`
	TunedUS      float64 `json:"tuned_us"`
	Candidates   int     `json:"candidates"`
	// Times is every timed variant's median in us by name; TileUS the same
	// by tile (thread, sg, multi, wg).
	Times  map[string]float64 `json:"times"`
	TileUS map[string]float64 `json:"tile_us"`
	// ThreadUS is the thread-per-block baseline; Best the fastest other
	// tile, and Speedup ThreadUS / BestUS.
	ThreadUS      float64 `json:"thread_us"`
	BestTile      string  `json:"best_tile"`
	BestUS        float64 `json:"best_us"`
	Speedup       float64 `json:"speedup"`
	BestGBps      float64 `json:"best_gbps"`
	TunedGBps     float64 `json:"tuned_gbps"`
	HeuristicGBps float64 `json:"heuristic_gbps"`
	TuneSeconds   float64 `json:"tune_seconds"`
}

// quantRotate is the input, in bytes, timed launches rotate over by default.
const quantRotate = 512 << 20

// RunQuant times one quantizer case through runtime.Tune (the heuristic
// pick and every eligible candidate) and then every tile Tune did not time,
// and records the result (the tuned pick in cache too).
func RunQuant(t kruntime.Timer, dev kruntime.Device, c QuantCase, cache *kruntime.TuneCache) (*QuantResult, error) {
	op := c.op()
	trs, err := kruntime.Tune(t, dev, []kruntime.Op{op}, cache)
	if err != nil {
		return nil, err
	}
	tr := trs[0]
	e := tr.Entry
	res := &QuantResult{QuantCase: c, Heuristic: e.Heuristic, HeuristicUS: e.HeurUS, Tuned: e.Variant, TunedUS: e.US,
		Times: map[string]float64{}, TileUS: map[string]float64{}, TuneSeconds: tr.Elapsed.Seconds()}
	for k, v := range tr.Times {
		res.Times[k] = v
	}
	for i := range generated.Variants {
		v := &generated.Variants[i]
		if v.Family != c.Family || v.Backend != dev.Backend || v.Arch != dev.Arch || v.Param("dtype") != c.Dtype {
			continue
		}
		l, err := kruntime.PlanQuant(v, dev, c.Rows, c.K)
		if err != nil {
			continue // a tile this device or shape cannot run
		}
		res.InputBytes, res.OutputBytes = int64(l.XBytes), int64(l.YBytes)
		us, ok := res.Times[v.Name]
		if !ok {
			if us, err = t.Time(v, op); err != nil {
				return nil, fmt.Errorf("%s %s: %w", op, v.Name, err)
			}
			res.Times[v.Name] = us
		}
		res.TileUS[v.Param("tile")] = us
	}
	res.Candidates = len(res.Times)
	res.Bytes = res.InputBytes + res.OutputBytes
	if r, ok := t.(interface{ rotated(kruntime.Op) int64 }); ok {
		res.RotatedBytes = r.rotated(op)
	}
	res.ThreadUS = res.TileUS["thread"]
	for tile, us := range res.TileUS {
		if tile != "thread" && (res.BestTile == "" || us < res.BestUS || us == res.BestUS && tile < res.BestTile) {
			res.BestTile, res.BestUS = tile, us
		}
	}
	gbps := func(us float64) float64 {
		if us <= 0 {
			return 0
		}
		return float64(res.Bytes) / us / 1e3
	}
	if res.BestUS > 0 && res.ThreadUS > 0 {
		res.Speedup = res.ThreadUS / res.BestUS
	}
	res.BestGBps, res.TunedGBps, res.HeuristicGBps = gbps(res.BestUS), gbps(res.TunedUS), gbps(res.HeuristicUS)
	return res, nil
}

// quantInput returns n bytes of random activations of dtype: normal values
// with a spread of magnitudes (never all zeros), a 4 MiB pattern repeated.
func quantInput(rng *rand.Rand, dtype string, n int) []byte {
	dt := dtypeOf(dtype)
	size := max(dt.ActBytes, 1)
	chunk := make([]byte, min(n, 4<<20)/size*size)
	for i := 0; i+size <= len(chunk); i += size {
		f := float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(12)-6)))
		switch dt.Act {
		case "f32":
			binary.LittleEndian.PutUint32(chunk[i:], math.Float32bits(f))
		case "f16":
			binary.LittleEndian.PutUint16(chunk[i:], ref.F32ToF16(f))
		default:
			binary.LittleEndian.PutUint16(chunk[i:], ref.F32ToBF16(f))
		}
	}
	out := make([]byte, n)
	for off := 0; off < n && len(chunk) > 0; off += len(chunk) {
		copy(out[off:], chunk)
	}
	return out
}

// quantBuffers are the CUDA runner's quantizer pools: random input of one
// dtype, slots of one case's input and output each.
type quantBuffers struct {
	dtype          string
	x, y           driver.Ptr
	xsize, ysize   int
	cursor         int // next slot; advances across repetitions and variants
	slots, launchN int
	xstride        int
	ystride        int
}

// maxQuantLaunches bounds the launches per timed repetition; the cursor
// carries on from there at the next repetition, so the pool is swept.
const maxQuantLaunches = 1024

func align256(n int) int { return (n + 255) &^ 255 }

// rotateBytes is the rotation target (RotateBytes, else 512 MiB).
func (r *Runner) rotateBytes() int {
	if r.RotateBytes > 0 {
		return r.RotateBytes
	}
	return quantRotate
}

func (r *Runner) freeQuant() {
	if r.quant == nil {
		return
	}
	r.Ctx.Free(r.quant.x)
	if r.quant.y != 0 {
		r.Ctx.Free(r.quant.y)
	}
	r.quant = nil
}

// prepareQuant sizes the pools for a launch: slots of the case's input
// (256-byte aligned) totalling at least the rotation target, refilled with
// random data only when the dtype changes or the pool grows.
func (r *Runner) prepareQuant(op kruntime.Op, l *kruntime.QuantLaunch) (*quantBuffers, error) {
	xstride, ystride := align256(l.XBytes), align256(l.YBytes)
	slots := max(1, (r.rotateBytes()+xstride-1)/xstride)
	q := r.quant
	if q == nil || q.dtype != op.Dtype || q.xsize < slots*xstride {
		r.freeQuant()
		size := max(slots*xstride, r.rotateBytes())
		x, err := r.Ctx.Alloc(size)
		if err != nil {
			return nil, err
		}
		q = &quantBuffers{dtype: op.Dtype, x: x, xsize: size}
		r.quant = q
		data := quantInput(r.Rng, op.Dtype, min(size, 4<<20))
		for off := 0; off < size; off += len(data) {
			if err := r.Ctx.Upload(x+driver.Ptr(off), data[:min(len(data), size-off)]); err != nil {
				return nil, err
			}
		}
	}
	if q.ysize < slots*ystride {
		if q.y != 0 {
			r.Ctx.Free(q.y)
			q.y, q.ysize = 0, 0
		}
		y, err := r.Ctx.Alloc(slots * ystride)
		if err != nil {
			return nil, err
		}
		q.y, q.ysize = y, slots*ystride
	}
	if q.xstride != xstride || q.ystride != ystride || q.slots != slots {
		q.cursor = 0
	}
	q.xstride, q.ystride, q.slots = xstride, ystride, slots
	q.launchN = min(slots, maxQuantLaunches)
	return q, nil
}

// rotated is the input bytes a quantizer op's launches rotate over.
func (r *Runner) rotated(op kruntime.Op) int64 {
	if r.quant == nil {
		return 0
	}
	return int64(r.quant.slots) * int64(r.quant.xstride)
}

// timeQuant times a quantizer launch: launchN launches per repetition, each
// on the next slot of the input and output pools, median over Reps divided
// by launchN.
func (r *Runner) timeQuant(v *table.Variant, op kruntime.Op) (float64, error) {
	l, err := kruntime.PlanQuant(v, r.Dev, op.M, op.K)
	if err != nil {
		return 0, err
	}
	fn, err := r.Mod.Function(v.Name)
	if err != nil {
		return 0, err
	}
	q, err := r.prepareQuant(op, l)
	if err != nil {
		return 0, err
	}
	launch := func() error {
		for i := 0; i < q.launchN; i++ {
			s := q.cursor
			q.cursor = (q.cursor + 1) % q.slots
			x, y := q.x+driver.Ptr(s*q.xstride), q.y+driver.Ptr(s*q.ystride)
			if err := r.Ctx.Launch(fn, l.Groups, [3]uint32{uint32(l.Workgroup), 1, 1}, 0, x, y,
				int32(op.M), int32(op.K), int32(l.Groups[0])); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := r.Ctx.Time(3, launch); err != nil { // warm-up
		return 0, err
	}
	ts, err := r.Ctx.Time(max(r.Reps, 1), launch)
	if err != nil {
		return 0, err
	}
	sort.Float64s(ts)
	return ts[len(ts)/2] / float64(q.launchN), nil
}
