// Package bench times GEMV variants on a GPU through the driver API (CUDA):
// the heuristic pick (runtime.Select) and the best of the eligible
// candidates (the tuned pick), with weights rotated across buffers so every
// launch streams from device memory, on random data.
package bench

import (
	"fmt"
	"io"
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
}

// Runner times variants of one HIP-source arch on a driver context.
type Runner struct {
	Ctx  *driver.Context
	Mod  *driver.Module
	Dev  kruntime.Device
	Reps int
	Log  io.Writer
}

// rotation is how many weight copies keep a case streaming from HBM.
func rotation(wbytes int64) int {
	const target = 512 << 20 // well past the 50 MB L2
	r := int((target + wbytes - 1) / wbytes)
	if r < 1 {
		r = 1
	}
	if r > 64 {
		r = 64
	}
	return r
}

// Run times one case: the heuristic pick and every eligible candidate with
// the widest pack (the tuned pick is the fastest of them).
func (r *Runner) Run(c Case, rng *rand.Rand) (*Result, error) {
	op := kruntime.Op{Family: "gemv", Dtype: c.Dtype, M: c.M, N: c.N, K: c.K}
	ch, err := kruntime.SelectWith(r.Dev, op, nil)
	if err != nil {
		return nil, err
	}
	var dt table.Dtype
	for _, d := range kruntime.Dtypes() {
		if d.Name == c.Dtype {
			dt = d
		}
	}
	wbytes := int64(c.N) * int64(c.K) * int64(dt.WeightBytes)
	res := &Result{Case: c, WeightBytes: wbytes, Bytes: wbytes + int64(c.M*c.K*dt.ActBytes) + int64(4*c.M*c.N), Heuristic: ch.Variant.Name}
	rot := rotation(wbytes)
	ws := make([]driver.Ptr, rot)
	for i := range ws {
		if ws[i], err = r.Ctx.Alloc(int(wbytes)); err != nil {
			return nil, err
		}
		defer r.Ctx.Free(ws[i])
	}
	// Random bits (never zeros); for fp8 avoid NaN patterns by masking.
	buf := make([]byte, wbytes)
	for i := range buf {
		buf[i] = byte(rng.IntN(256)) & 0x3F
	}
	for i := range ws {
		if err := r.Ctx.Upload(ws[i], buf); err != nil {
			return nil, err
		}
	}
	xb := make([]byte, c.M*c.K*dt.ActBytes)
	for i := range xb {
		xb[i] = byte(rng.IntN(256)) & 0x3F
	}
	x, err := r.Ctx.Alloc(len(xb))
	if err != nil {
		return nil, err
	}
	defer r.Ctx.Free(x)
	if err := r.Ctx.Upload(x, xb); err != nil {
		return nil, err
	}
	alloc := func(n int) (driver.Ptr, error) { return r.Ctx.Alloc(max(n, 16)) }
	scale, _ := alloc(4 * c.N)
	y, _ := alloc(4 * c.M * c.N)
	partial, _ := alloc(4 * 8 * c.M * c.N)
	counter, _ := alloc(4 * c.N)
	defer func() { r.Ctx.Free(scale); r.Ctx.Free(y); r.Ctx.Free(partial); r.Ctx.Free(counter) }()
	r.Ctx.Memset32(scale, 0x3F800000, c.N)
	r.Ctx.Memset32(counter, 0, c.N)

	timeVariant := func(v *table.Variant) (float64, error) {
		l, err := kruntime.PlanGEMV(v, r.Dev, c.M, c.N, c.K)
		if err != nil {
			return 0, err
		}
		fn, err := r.Mod.Function(v.Name)
		if err != nil {
			return 0, err
		}
		launch := func() error {
			for _, w := range ws {
				if err := r.Ctx.Launch(fn, l.Groups, [3]uint32{uint32(l.Workgroup), 1, 1}, 0, w, x, scale, y, partial, counter, int32(c.M), int32(c.N), int32(c.K)); err != nil {
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
		return ts[len(ts)/2] / float64(len(ws)), nil
	}
	if res.HeuristicUS, err = timeVariant(ch.Variant); err != nil {
		return nil, fmt.Errorf("%s: %w", ch.Variant.Name, err)
	}
	res.Tuned, res.TunedUS = res.Heuristic, res.HeuristicUS
	maxPack := ch.Variant.IntParam("pack")
	for _, cand := range ch.Candidates {
		v := cand.Variant
		if cand.Excluded != "" || v == ch.Variant || v.IntParam("pack") != maxPack || v.IntParam("tokens") != ch.Variant.IntParam("tokens") {
			continue
		}
		res.Candidates++
		us, err := timeVariant(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.Name, err)
		}
		if us < res.TunedUS {
			res.Tuned, res.TunedUS = v.Name, us
		}
	}
	res.Candidates++
	res.TunedGBps = float64(res.Bytes) / res.TunedUS / 1e3
	res.HeuristicGBps = float64(res.Bytes) / res.HeuristicUS / 1e3
	return res, nil
}
