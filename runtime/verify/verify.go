// Package verify runs generated variants on a real device against the CPU
// references of runtime/ref, through one path for every family: each
// variant's verify cases (runtime.VerifyCases), each planned like any
// launch (runtime.Plan), inputs made by the reference the family's contract
// names (verify.reference in templates/kernels.yaml), the output poisoned
// before each run (verify.poison) so an unwritten element fails, and the
// comparison the contract names: relative (L2 error relative to the
// reference's magnitudes, bound runtime.Bound) or exact (byte for byte, the
// verify.guard bytes after the output left poisoned).
package verify

import (
	"bytes"
	"encoding/binary"
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

// Failure is one failed check.
type Failure struct {
	Variant string
	Op      kruntime.Op // the case (M, N, K); zero when the variant failed before its cases
	Msg     string
}

func (f Failure) String() string {
	if f.Op == (kruntime.Op{}) {
		return fmt.Sprintf("FAIL %s: %s", f.Variant, f.Msg)
	}
	return fmt.Sprintf("FAIL %s %s: %s", f.Variant, caseName(f.Op), f.Msg)
}

func caseName(op kruntime.Op) string { return fmt.Sprintf("m=%d n=%d k=%d", op.M, op.N, op.K) }

// Report summarizes a verification.
type Report struct {
	Device   string
	Verified int // variants run
	Programs int // distinct programs run (variants sharing a blob, constants and parameters run once)
	Passed   int
	Failed   int
	Shapes   int // case runs in all
	Failures []Failure
	Skipped  []string // variants the device cannot run, with the reason
	Seed     uint64
	Elapsed  time.Duration
	// ExactVariants counts the variants compared byte for byte (verify.compare
	// exact; every row a program stands for) and ExactBlocks the output blocks
	// compared (once per program).
	ExactVariants, ExactBlocks int
}

// Summary is the closing line.
func (r *Report) Summary() string {
	s := fmt.Sprintf("verified %d variants (%d distinct programs) on %s: %d passed, %d failed", r.Verified, r.Programs, r.Device, r.Passed, r.Failed)
	if r.ExactVariants > 0 {
		s += fmt.Sprintf(" (%d variants compared byte for byte with runtime/ref on %d blocks)", r.ExactVariants, r.ExactBlocks)
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

// Runner executes planned launches on one device.
type Runner interface {
	// Device describes the device for selection rules and geometry.
	Device() kruntime.Device
	// Name is the device's name for the summary.
	Name() string
	// Run launches l once: its in buffers hold inputs (by buffer name), its
	// out buffer and the guard bytes after it are filled with the 32-bit
	// pattern poison first, and its scratch buffers with Zero set hold
	// zeros when allocated (the kernels leave them so). It returns the out
	// buffer's bytes followed by the guard bytes.
	Run(l *kruntime.Launch, inputs map[string][]byte, poison uint32, guard int) ([]byte, error)
}

// Options of a verification run.
type Options struct {
	Filter Filter
	Seed   uint64 // 0: fresh from the clock
	Log    io.Writer
	// Progress, when set, receives a line every so many variants.
	Progress io.Writer
}

// lookup finds a family's reference (tests replace it).
var lookup = ref.Lookup

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
	groups := programs(sel, dev)
	done := 0
	for i, g := range groups {
		v := g[0]
		done += len(g)
		if err := kruntime.CheckDevice(v, dev); err != nil {
			for _, x := range g {
				rep.Skipped = append(rep.Skipped, x.Key()+": "+err.Error())
			}
			continue
		}
		rep.Verified += len(g)
		rep.Programs++
		ok := true
		also := ""
		if len(g) > 1 {
			also = fmt.Sprintf(" (the same program as %d other table rows:", len(g)-1)
			for _, x := range g[1:] {
				also += " " + x.Key()
			}
			also += ")"
		}
		fail := func(f Failure) {
			ok = false
			f.Msg += also
			rep.Failures = append(rep.Failures, f)
			if o.Log != nil {
				fmt.Fprintln(o.Log, f)
			}
		}
		c, err := newChecker(v, dev)
		if err != nil {
			fail(Failure{Variant: v.Key(), Msg: err.Error()})
		} else {
			if c.exact {
				rep.ExactVariants += len(g)
			}
			for _, op := range c.ops {
				rep.Shapes++
				blocks, msg := c.check(r, rng, op)
				rep.ExactBlocks += blocks
				if msg != "" {
					fail(Failure{Variant: v.Key(), Op: op, Msg: msg})
				}
			}
		}
		if ok {
			rep.Passed += len(g)
		} else {
			rep.Failed += len(g)
		}
		if o.Progress != nil && (i+1)%250 == 0 {
			fmt.Fprintf(o.Progress, "verify: %d/%d variants (%d programs), %d failed, %s\n", done, len(sel), i+1, rep.Failed, time.Since(start).Round(time.Second))
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// programs groups the variants by what the device would run: table rows of
// several Vulkan device classes share a blob, and rows with the same blob,
// specialization constants and parameters are one program on this device
// (their launches, computed from the parameters and the device, are the
// same), so each group is run once. The first of a group is the one whose
// arch is the device's own when there is one (its verify cases can include
// native-only ones); groups keep the variants' order.
func programs(sel []*table.Variant, dev kruntime.Device) [][]*table.Variant {
	var out [][]*table.Variant
	index := map[string]int{}
	for _, v := range sel {
		k := programKey(v)
		i, ok := index[k]
		if !ok {
			index[k] = len(out)
			out = append(out, []*table.Variant{v})
			continue
		}
		if v.Arch == dev.Arch && out[i][0].Arch != dev.Arch {
			out[i] = append([]*table.Variant{v}, out[i]...)
		} else {
			out[i] = append(out[i], v)
		}
	}
	return out
}

// programKey identifies what runs for v: its artifact, specialization
// constants and parameters; and its arch, for artifacts that are sources
// built per arch (HIP).
func programKey(v *table.Variant) string {
	var b strings.Builder
	b.WriteString(v.Backend + "|" + v.Family + "|" + v.Artifact.Path + "|" + v.Artifact.SHA256)
	if len(v.Spec) == 0 {
		b.WriteString("|" + v.Arch + "|" + v.Name)
	}
	for _, sc := range v.Spec {
		fmt.Fprintf(&b, "|%d=%d", sc.ID, sc.Value)
	}
	for _, p := range v.Params {
		fmt.Fprintf(&b, "|%s=%s%d", p.N, p.S, p.I)
	}
	return b.String()
}

// checker verifies one variant: its family's verification contract, its
// reference and its cases on the device.
type checker struct {
	v     *table.Variant
	dev   kruntime.Device
	vf    *table.Verify
	dtype table.Dtype
	ref   ref.Reference
	exact bool
	ops   []kruntime.Op
}

func newChecker(v *table.Variant, dev kruntime.Device) (*checker, error) {
	fam, err := kruntime.Contract(v.Family)
	if err != nil {
		return nil, err
	}
	vf := &fam.Verify
	rf, ok := lookup(vf.Reference)
	if !ok {
		return nil, fmt.Errorf("family %s: its contract names CPU reference %q, which runtime/ref does not register (registered: %s)",
			v.Family, vf.Reference, strings.Join(ref.Names(), ", "))
	}
	if vf.Compare != "relative" && vf.Compare != "exact" {
		return nil, fmt.Errorf("family %s: unknown verify compare %q (want relative or exact)", v.Family, vf.Compare)
	}
	c := &checker{v: v, dev: dev, vf: vf, ref: rf, exact: vf.Compare == "exact"}
	found := false
	for _, d := range kruntime.Dtypes() {
		if d.Name == v.Param("dtype") {
			c.dtype, found = d, true
		}
	}
	if !found {
		return nil, fmt.Errorf("unknown dtype %q", v.Param("dtype"))
	}
	if c.ops, err = kruntime.VerifyCases(v, dev); err != nil {
		return nil, err
	}
	if len(c.ops) == 0 {
		return nil, fmt.Errorf("family %s: no verify case applies to the variant", v.Family)
	}
	return c, nil
}

// Check plans op, has the reference make its inputs and expected output,
// runs it on r and compares. It returns the blocks compared byte for byte
// and "" or what differed.
func (c *checker) check(r Runner, rng *rand.Rand, op kruntime.Op) (int, string) {
	l, err := kruntime.Plan(c.v, c.dev, op)
	if err != nil {
		return 0, "plan: " + err.Error()
	}
	out := l.Output()
	if out == nil {
		return 0, "the launch contract has no out buffer"
	}
	p := ref.Problem{M: op.M, N: op.N, K: op.K, Dtype: c.dtype.Name, Weight: c.dtype.Weight, Act: c.dtype.Act, Scaled: c.dtype.Scaled}
	for _, b := range l.Buffers {
		p.Buffers = append(p.Buffers, ref.Buffer{Name: b.Name, Dir: b.Dir, Elem: b.Elem, Size: b.Size})
	}
	exp, err := c.ref(p, rng)
	if err != nil {
		return 0, "reference: " + err.Error()
	}
	for _, b := range l.Buffers {
		if b.Dir == "in" && len(exp.Inputs[b.Name]) != b.Size {
			return 0, fmt.Sprintf("reference %s made %d bytes for buffer %s; the launch sizes it %d", c.vf.Reference, len(exp.Inputs[b.Name]), b.Name, b.Size)
		}
	}
	guard := c.vf.Guard
	got, err := r.Run(l, exp.Inputs, c.vf.Poison, guard)
	if err != nil {
		return 0, "run: " + err.Error()
	}
	if len(got) != out.Size+guard {
		return 0, fmt.Sprintf("runner returned %d bytes, want %d + %d guard", len(got), out.Size, guard)
	}
	var poison [4]byte
	binary.LittleEndian.PutUint32(poison[:], c.vf.Poison)
	for i, b := range got[out.Size:] {
		// The buffer is poisoned from its start, 4 bytes at a time.
		if want := poison[(out.Size+i)%4]; b != want {
			return 0, fmt.Sprintf("wrote past the output: byte %d after it is %#02x (poison %#02x)", i, b, want)
		}
	}
	got = got[:out.Size]
	if c.exact {
		return compareExact(got, exp)
	}
	bound, err := kruntime.Bound(c.v, op)
	if err != nil {
		return 0, "bound: " + err.Error()
	}
	return 0, compareRelative(got, out, exp, bound)
}

// compareExact compares the output byte for byte with the reference's
// blocks.
func compareExact(got []byte, exp *ref.Expected) (int, string) {
	unit := exp.Unit
	if unit <= 0 {
		unit = max(len(exp.Bytes), 1)
	}
	if len(got) != len(exp.Bytes) || len(exp.Bytes)%unit != 0 {
		return 0, fmt.Sprintf("the output holds %d bytes; the reference made %d (blocks of %d)", len(got), len(exp.Bytes), unit)
	}
	blocks := len(exp.Bytes) / unit
	if bytes.Equal(got, exp.Bytes) {
		return blocks, ""
	}
	bad, first := 0, -1
	for blk := 0; blk < blocks; blk++ {
		lo, hi := blk*unit, (blk+1)*unit
		if !bytes.Equal(got[lo:hi], exp.Bytes[lo:hi]) {
			bad++
			if first < 0 {
				first = blk
			}
		}
	}
	g, w := got[first*unit:(first+1)*unit], exp.Bytes[first*unit:(first+1)*unit]
	var what string
	if exp.Describe != nil {
		what = exp.Describe(first, g, w)
	} else {
		off := 0
		for g[off] == w[off] {
			off++
		}
		what = fmt.Sprintf("block %d: byte %d got %#02x want %#02x", first, off, g[off], w[off])
	}
	return blocks, fmt.Sprintf("%d of %d blocks differ; first: %s", bad, blocks, what)
}

// compareRelative measures the L2 error of the output's float32 elements
// against the reference values, relative to the reference magnitudes.
func compareRelative(got []byte, out *kruntime.PlannedBuffer, exp *ref.Expected, bound float64) string {
	if out.Elem != "f32" {
		return fmt.Sprintf("a relative compare reads f32 outputs; buffer %s holds %s", out.Name, out.Elem)
	}
	y := ref.Floats(got)
	if len(y) != len(exp.Want) || len(exp.Mag) != len(exp.Want) {
		return fmt.Sprintf("the output holds %d elements; the reference made %d values and %d magnitudes", len(y), len(exp.Want), len(exp.Mag))
	}
	// Error against the magnitudes (for GEMV sum |x*w|, the dot products'
	// condition), not |y|: a K=2 f32 row that cancels to near zero measured
	// 2e-5 "relative" error on NVIDIA with every product and sum correctly
	// rounded.
	rel := ref.RelL2Mag(y, exp.Want, exp.Mag)
	if rel < bound {
		return ""
	}
	detail := ""
	if idx := firstOver(y, exp.Want, exp.Mag, bound); idx >= 0 {
		where := ""
		if exp.Index != nil {
			where = " (" + exp.Index(idx) + ")"
		}
		detail = fmt.Sprintf("; first differing index %d%s: got %g want %g", idx, where, y[idx], exp.Want[idx])
	}
	if math.IsInf(rel, 1) || math.IsNaN(rel) {
		return "output has NaN/Inf (unwritten or overflowed)" + detail
	}
	return fmt.Sprintf("relative L2 error %.3g > %.0e%s", rel, bound, detail)
}

// firstOver is the first element that is not finite or is off by more than
// bound times its magnitude, or -1.
func firstOver(got []float32, want, mag []float64, bound float64) int {
	for i, g := range got {
		d := float64(g) - want[i]
		if math.IsNaN(d) || math.IsInf(d, 0) || math.Abs(d) > bound*mag[i] {
			return i
		}
	}
	return -1
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
