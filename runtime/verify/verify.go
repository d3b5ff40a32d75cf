// Package verify runs generated variants on a real device against the CPU
// reference (runtime/ref). GEMV: fresh random inputs (never zeros), outputs
// poisoned with NaN before each run so an unwritten element fails, and
// shapes that include K and N tails, every token count up to the variant's,
// and the smallest and largest shapes the variant accepts. Quantizers
// (quant.go): random and crafted blocks, outputs poisoned with 0xFF bytes,
// compared byte for byte.
package verify

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/ref"
	"github.com/kgen-dev/kgen/runtime/table"
)

// Tolerances on the L2 error against the float64 reference, relative to the
// L2 norm of sum |x*w| per output (ref.GemvAbs).
const (
	TolF32   = 1e-5 // f32 weights and activations
	TolOther = 1e-3 // f16, bf16 and fp8 inputs
)

// Shape is one GEMV problem.
type Shape struct{ T, N, K int }

func (s Shape) String() string { return fmt.Sprintf("T=%d N=%d K=%d", s.T, s.N, s.K) }

// Shapes lists the shapes v is verified on (device-dependent lanes).
func Shapes(v *table.Variant, dev kruntime.Device) []Shape {
	tokens, pack, rows := v.IntParam("tokens"), v.IntParam("pack"), v.IntParam("rows")
	lanes := kruntime.WorkgroupSize(v, dev)
	if v.Param("layout") == "subgroup" {
		lanes = dev.Wave
	}
	splits := v.IntParam("splits")
	minK := pack
	if v.Param("layout") == "splitk" {
		minK = splits * v.IntParam("wg") * pack // the smallest K its eligibility rule accepts
	}
	roundK := func(k int) int { return (k + pack - 1) / pack * pack }
	out := []Shape{
		{1, 1, minK}, // smallest
		{tokens, 2*rows + 1, roundK(2*pack*lanes*max(splits, 1) + 3*pack)}, // N and K tails
		{max(1, tokens-1), 37, roundK(1000 + 3*pack)},                      // T < tokens, odd N
		{tokens, 4*rows + 3, roundK(8192 + 5*pack)},                        // largest verified: long K
	}
	for t := 1; t < tokens-1; t++ { // every other token count, on a small shape
		out = append(out, Shape{t, rows + 1, roundK(3*pack*lanes + pack)})
	}
	for i := range out {
		if out[i].K < minK {
			out[i].K = minK
		}
	}
	return out
}

// Failure is one failed check.
type Failure struct {
	Variant string
	Shape   Shape
	Case    string // the case, for families without a GEMV Shape (quantizers)
	Msg     string
}

func (f Failure) String() string {
	if f.Case != "" {
		return fmt.Sprintf("FAIL %s %s: %s", f.Variant, f.Case, f.Msg)
	}
	return fmt.Sprintf("FAIL %s %s: %s", f.Variant, f.Shape, f.Msg)
}

// Report summarizes a verification.
type Report struct {
	Device   string
	Verified int // variants run
	Passed   int
	Failed   int
	Shapes   int // shape runs in all
	Failures []Failure
	Skipped  []string // variants the device cannot run, with the reason
	Seed     uint64
	Elapsed  time.Duration
	// QuantVariants and QuantBlocks count the quantizer variants verified and
	// the output blocks compared byte for byte.
	QuantVariants, QuantBlocks int
}

// Summary is the closing line.
func (r *Report) Summary() string {
	s := fmt.Sprintf("verified %d variants on %s: %d passed, %d failed", r.Verified, r.Device, r.Passed, r.Failed)
	if r.QuantVariants > 0 {
		s += fmt.Sprintf(" (%d quantizer variants compared byte for byte with runtime/ref on %d blocks)", r.QuantVariants, r.QuantBlocks)
	}
	return s
}

// Filter selects variants.
type Filter struct {
	Backend, Family, Variant, Arch string
}

// Match reports whether v passes the filter.
func (f Filter) Match(v *table.Variant) bool {
	return (f.Backend == "" || v.Backend == f.Backend) && (f.Family == "" || v.Family == f.Family) &&
		(f.Variant == "" || v.Name == f.Variant || v.Key() == f.Variant) && (f.Arch == "" || v.Arch == f.Arch)
}

// Runner executes one variant on one shape and returns Y (T*N floats).
type Runner interface {
	// Device describes the device for selection rules and geometry.
	Device() kruntime.Device
	// Name is the device's name for the summary.
	Name() string
	// RunGEMV runs v with the given encoded inputs; Y is poisoned first.
	RunGEMV(v *table.Variant, s Shape, w, x, scale []byte) ([]float32, error)
	// RunQuant runs quantizer v on rows x K encoded inputs. Its output
	// buffer is filled with 0xFF bytes first; it returns the output blocks
	// followed by the next guard bytes of the buffer (which must stay 0xFF).
	RunQuant(v *table.Variant, rows, K int, x []byte, guard int) ([]byte, error)
}

// Options of a verification run.
type Options struct {
	Filter Filter
	Seed   uint64 // 0: fresh from the clock
	Log    io.Writer
	// Progress, when set, receives a line every so many variants.
	Progress io.Writer
}

// Run verifies every table variant the filter selects on the runner.
func Run(r Runner, variants []table.Variant, o Options) (*Report, error) {
	seed := o.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	rep := &Report{Device: r.Name(), Seed: seed}
	start := time.Now()
	dev := r.Device()
	var sel []*table.Variant
	for i := range variants {
		if o.Filter.Match(&variants[i]) {
			sel = append(sel, &variants[i])
		}
	}
	if len(sel) == 0 {
		return nil, fmt.Errorf("no variant matches %+v", o.Filter)
	}
	for i, v := range sel {
		quant := kruntime.IsQuant(v.Family)
		if v.Family != "gemv" && !quant {
			rep.Skipped = append(rep.Skipped, v.Key()+": no verifier for family "+v.Family)
			continue
		}
		if wg := kruntime.WorkgroupSize(v, dev); dev.MaxWorkgroup > 0 && wg > dev.MaxWorkgroup {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: workgroup %d > device max %d", v.Key(), wg, dev.MaxWorkgroup))
			continue
		}
		rep.Verified++
		ok := true
		fail := func(f Failure) {
			ok = false
			rep.Failures = append(rep.Failures, f)
			if o.Log != nil {
				fmt.Fprintln(o.Log, f)
			}
		}
		if quant {
			rep.QuantVariants++
			for _, c := range QuantCases(v, dev) {
				rep.Shapes++
				blocks, msg := checkQuant(r, rng, v, c)
				rep.QuantBlocks += blocks
				if msg != "" {
					fail(Failure{Variant: v.Key(), Case: c.String(), Msg: msg})
				}
			}
		}
		for _, s := range gemvShapes(v, dev) {
			rep.Shapes++
			if msg := checkGEMV(r, rng, v, s); msg != "" {
				fail(Failure{Variant: v.Key(), Shape: s, Msg: msg})
			}
		}
		if ok {
			rep.Passed++
		} else {
			rep.Failed++
		}
		if o.Progress != nil && (i+1)%250 == 0 {
			fmt.Fprintf(o.Progress, "verify: %d/%d variants, %d failed, %s\n", i+1, len(sel), rep.Failed, time.Since(start).Round(time.Second))
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// gemvShapes is Shapes for GEMV variants, nothing for other families.
func gemvShapes(v *table.Variant, dev kruntime.Device) []Shape {
	if v.Family != "gemv" {
		return nil
	}
	return Shapes(v, dev)
}

func checkGEMV(r Runner, rng *rand.Rand, v *table.Variant, s Shape) string {
	dt := dtype(v.Param("dtype"))
	w, wf := encode(rng, dt.Weight, s.N*s.K)
	x, xf := encode(rng, dt.Act, s.T*s.K)
	var sb []byte
	var sf []float32
	if dt.Scaled {
		sb, sf = scales(rng, s.N)
	} else {
		sb = make([]byte, 4) // bound but unread
	}
	got, err := r.RunGEMV(v, s, w, x, sb)
	if err != nil {
		return "run: " + err.Error()
	}
	want := ref.Gemv(wf, xf, sf, s.T, s.N, s.K)
	tol := TolOther
	if dt.Weight == "f32" && dt.Act == "f32" {
		tol = TolF32
	}
	// Error against sum |x*w| (the dot products' condition), not |y|: a
	// K=2 f32 row that cancels to near zero measured 2e-5 "relative" error
	// on NVIDIA with every product and sum correctly rounded.
	rel := ref.RelL2Mag(got, want, ref.GemvAbs(wf, xf, sf, s.T, s.N, s.K))
	if !(rel < tol) {
		idx := ref.FirstMismatch(got, want, 1e-6, tol)
		detail := ""
		if idx >= 0 {
			detail = fmt.Sprintf("; first differing index %d (t=%d n=%d): got %g want %g", idx, idx/s.N, idx%s.N, got[idx], want[idx])
		}
		if math.IsInf(rel, 1) {
			return "output has NaN/Inf (unwritten or overflowed)" + detail
		}
		return fmt.Sprintf("relative L2 error %.3g > %.0e%s", rel, tol, detail)
	}
	return ""
}

func dtype(name string) table.Dtype {
	for _, d := range kruntime.Dtypes() {
		if d.Name == name {
			return d
		}
	}
	panic("verify: unknown dtype " + name)
}

// FailureLines formats failures, one per line, sorted.
func (r *Report) FailureLines() string {
	var lines []string
	for _, f := range r.Failures {
		lines = append(lines, f.String())
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
