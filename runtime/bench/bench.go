// Package bench times GEMV variants on a GPU through the driver API (CUDA):
// the heuristic pick (runtime.Select) and the best of the eligible
// candidates (the tuned pick), with weights rotated across buffers so every
// launch streams from device memory, on random data.
package bench

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"

	"github.com/goccy/go-yaml"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/driver"
	"github.com/kgen-dev/kgen/runtime/table"
)

// Suite is a decode-shapes.yaml file.
type Suite struct {
	Tokens []int                                    `yaml:"tokens"`
	Models map[string]map[string]struct{ N, K int } `yaml:"models"`
	Quant  map[string]struct{ Rows, K int }         `yaml:"quant"`
}

// Case is one shape to time.
type Case struct {
	Model, Layer string
	N, K, M      int
	Dtype        string
}

// LoadSuite reads a shape file.
func LoadSuite(path string) (*Suite, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Suite
	if err := yaml.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// Cases expands the suite for dtypes.
func (s *Suite) Cases(dtypes []string) []Case {
	var out []Case
	models := make([]string, 0, len(s.Models))
	for m := range s.Models {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		layers := make([]string, 0)
		for l := range s.Models[m] {
			layers = append(layers, l)
		}
		sort.Strings(layers)
		for _, l := range layers {
			sh := s.Models[m][l]
			for _, d := range dtypes {
				for _, t := range s.Tokens {
					out = append(out, Case{Model: m, Layer: l, N: sh.N, K: sh.K, M: t, Dtype: d})
				}
			}
		}
	}
	return out
}

// Result is one timed case.
type Result struct {
	Case
	WeightBytes   int64   `json:"weight_bytes"`
	Bytes         int64   `json:"bytes"` // weights + x + y
	Heuristic     string  `json:"heuristic"`
	HeuristicUS   float64 `json:"heuristic_us"`
	Tuned         string  `json:"tuned"`
	TunedUS       float64 `json:"tuned_us"`
	Candidates    int     `json:"candidates"`
	TunedGBps     float64 `json:"tuned_gbps"`
	HeuristicGBps float64 `json:"heuristic_gbps"`
	TuneSeconds   float64 `json:"tune_seconds"`
	// Times is every timed candidate's median in us by variant name (the
	// heuristic and tuned picks included), for evaluating selection rules
	// offline (go run ./cmd/benchreport -eval).
	Times map[string]float64 `json:"times,omitempty"`
}

// Kernels finds kernels by name: a *driver.Module, or *driver.Modules to
// look them up across several.
type Kernels interface {
	Function(name string) (*driver.Function, error)
}

// Runner times variants of one HIP-source arch on a driver context. It is
// a runtime.Timer for GEMV and quantizer ops: buffers are set up once per
// op and reused for every candidate of that op.
type Runner struct {
	Ctx  *driver.Context
	Mod  Kernels
	Dev  kruntime.Device
	Reps int
	Rng  *rand.Rand
	// RotateBytes is the quantizer input the timed launches rotate over
	// (0: 512 MiB, well past the 50 MB L2).
	RotateBytes int

	op    kruntime.Op
	bufs  *opBuffers
	quant *quantBuffers
}

type opBuffers struct {
	ws                            []driver.Ptr
	x, scale, y, partial, counter driver.Ptr
	wbytes                        int64
}

// weightBytes is the size of op's weight matrix.
func weightBytes(op kruntime.Op) int64 {
	return int64(op.N) * int64(op.K) * int64(dtypeOf(op.Dtype).WeightBytes)
}

// sameWeights reports whether op can reuse the weight copies set up for prev
// (same N x K and element size: the suite's token counts of one layer).
func sameWeights(prev, op kruntime.Op) bool {
	return prev.N == op.N && prev.K == op.K && weightBytes(prev) == weightBytes(op)
}

// rotation is how many weight copies keep a case streaming from HBM.
func rotation(wbytes int64) int {
	const target = 512 << 20 // well past the 50 MB L2
	r := int((target + wbytes - 1) / wbytes)
	return min(max(r, 1), 64)
}

func dtypeOf(name string) table.Dtype {
	for _, d := range kruntime.Dtypes() {
		if d.Name == name {
			return d
		}
	}
	return table.Dtype{}
}

// Close frees the current op's buffers.
func (r *Runner) Close() { r.free(); r.freeQuant() }

func (r *Runner) free() {
	if r.bufs == nil {
		return
	}
	for _, w := range r.bufs.ws {
		r.Ctx.Free(w)
	}
	for _, p := range []driver.Ptr{r.bufs.x, r.bufs.scale, r.bufs.y, r.bufs.partial, r.bufs.counter} {
		r.Ctx.Free(p)
	}
	r.bufs = nil
}

// prepare allocates rotated weights and the other buffers for op, filled
// with random bytes (never zeros; fp8 NaN patterns masked out). Weights are
// kept across ops of the same N x K and weight size (the suite's token
// counts), since filling gigabytes dominates a case otherwise.
func (r *Runner) prepare(op kruntime.Op) error {
	if r.bufs != nil && r.op == op {
		return nil
	}
	dt := dtypeOf(op.Dtype)
	wbytes := weightBytes(op)
	var ws []driver.Ptr
	if r.bufs != nil && sameWeights(r.op, op) {
		ws, r.bufs.ws = r.bufs.ws, nil
	}
	r.free()
	b := &opBuffers{wbytes: wbytes, ws: ws}
	r.bufs, r.op = b, op
	if b.ws == nil {
		wdata := randomBytes(r.Rng, int(b.wbytes))
		for i := 0; i < rotation(b.wbytes); i++ {
			w, err := r.Ctx.Alloc(int(b.wbytes))
			if err != nil {
				return err
			}
			b.ws = append(b.ws, w)
			if err := r.Ctx.Upload(w, wdata); err != nil {
				return err
			}
		}
	}
	var err error
	alloc := func(n int) driver.Ptr {
		if err != nil {
			return 0
		}
		var p driver.Ptr
		p, err = r.Ctx.Alloc(max(n, 16))
		return p
	}
	b.x, b.scale, b.y = alloc(op.M*op.K*dt.ActBytes), alloc(4*op.N), alloc(4*op.M*op.N)
	b.partial, b.counter = alloc(4*8*op.M*op.N), alloc(4*op.N)
	if err != nil {
		return err
	}
	if err := r.Ctx.Upload(b.x, randomBytes(r.Rng, op.M*op.K*dt.ActBytes)); err != nil {
		return err
	}
	if err := r.Ctx.Memset32(b.scale, 0x3F800000, op.N); err != nil {
		return err
	}
	return r.Ctx.Memset32(b.counter, 0, op.N)
}

// randomBytes is n random bytes, each masked to 0x3F: never all zero, and
// every pair a finite positive f16/bf16 and every byte a finite e4m3.
func randomBytes(rng *rand.Rand, n int) []byte {
	buf := make([]byte, n+7)
	for i := 0; i < n; i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], rng.Uint64()&0x3F3F3F3F3F3F3F3F)
	}
	return buf[:n]
}

// Time implements runtime.Timer: the median over Reps of one launch per
// weight copy, divided by the copies (GEMV), or of launches over rotated
// input and output slots (quantizers, timeQuant).
func (r *Runner) Time(v *table.Variant, op kruntime.Op) (float64, error) {
	if kruntime.IsQuant(op.Family) {
		return r.timeQuant(v, op)
	}
	if err := r.prepare(op); err != nil {
		return 0, err
	}
	l, err := kruntime.PlanGEMV(v, r.Dev, op.M, op.N, op.K)
	if err != nil {
		return 0, err
	}
	fn, err := r.Mod.Function(v.Name)
	if err != nil {
		return 0, err
	}
	b := r.bufs
	launch := func() error {
		for _, w := range b.ws {
			if err := r.Ctx.Launch(fn, l.Groups, [3]uint32{uint32(l.Workgroup), 1, 1}, 0, w, b.x, b.scale, b.y, b.partial, b.counter,
				int32(op.M), int32(op.N), int32(op.K)); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := r.Ctx.Time(3, launch); err != nil { // warm-up
		return 0, err
	}
	ts, err := r.Ctx.Time(r.Reps, launch)
	if err != nil {
		return 0, err
	}
	sort.Float64s(ts)
	return ts[len(ts)/2] / float64(len(b.ws)), nil
}

// Run times one case on a timer through runtime.Tune (heuristic pick and the
// candidates Tune sweeps) and records the result, tuning cache included.
func Run(t kruntime.Timer, dev kruntime.Device, c Case, cache *kruntime.TuneCache) (*Result, error) {
	op := kruntime.Op{Family: "gemv", Dtype: c.Dtype, M: c.M, N: c.N, K: c.K}
	trs, err := kruntime.Tune(t, dev, []kruntime.Op{op}, cache)
	if err != nil {
		return nil, err
	}
	e := trs[0].Entry
	dt := dtypeOf(c.Dtype)
	wbytes := weightBytes(op)
	res := &Result{Case: c, WeightBytes: wbytes, Bytes: wbytes + int64(c.M*c.K*dt.ActBytes) + int64(4*c.M*c.N),
		Heuristic: e.Heuristic, HeuristicUS: e.HeurUS, Tuned: e.Variant, TunedUS: e.US, Candidates: e.Candidates, TuneSeconds: trs[0].Elapsed.Seconds(),
		Times: trs[0].Times}
	res.TunedGBps = float64(res.Bytes) / res.TunedUS / 1e3
	res.HeuristicGBps = float64(res.Bytes) / res.HeuristicUS / 1e3
	return res, nil
}
