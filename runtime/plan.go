package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/kgen-dev/kgen/runtime/expr"
	"github.com/kgen-dev/kgen/runtime/table"
)

// Launch is one variant's launch for one op on one device, computed from
// its family's launch contract (templates/kernels.yaml, launch:): the same
// path for every family and backend.
type Launch struct {
	Variant *table.Variant
	Op      Op
	// Groups is the grid; Workgroups the workgroups that do work (a folded
	// linear count leaves numbers past it idle).
	Groups     [3]uint32
	Workgroups int
	Workgroup  int // lanes per workgroup
	// Buffers in binding order (Vulkan) and pointer order (HIP), sized.
	Buffers []PlannedBuffer
	// Args are the 32-bit launch arguments for the device's backend: push
	// constants on Vulkan, kernel arguments after the pointers on HIP.
	Args     []uint32
	ArgNames []string
	// Lets are the contract's named values for this launch, in order.
	Lets []NamedValue
}

// NamedValue is one let of a planned launch.
type NamedValue struct {
	Name  string
	Value int64
}

// Let returns the value of a let of the contract (false when absent).
func (l *Launch) Let(name string) (int64, bool) {
	for _, nv := range l.Lets {
		if nv.Name == name {
			return nv.Value, true
		}
	}
	return 0, false
}

// Arg returns the launch argument named name (false when the backend has
// none of that name).
func (l *Launch) Arg(name string) (uint32, bool) {
	for i, n := range l.ArgNames {
		if n == name {
			return l.Args[i], true
		}
	}
	return 0, false
}

// PlannedBuffer is a contract buffer with its size for the op.
type PlannedBuffer struct {
	table.Buffer
	Size int // bytes the kernel may touch
}

// RefusedError is a launch the variant cannot serve; nothing was launched.
type RefusedError struct {
	Variant string
	Reason  string
}

func (e *RefusedError) Error() string { return fmt.Sprintf("%s refuses: %s", e.Variant, e.Reason) }

// ErrRefused matches every RefusedError.
var ErrRefused = errors.New("refused")

func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// maxGroups is the workgroup count per dimension every device supports
// (Vulkan's maxComputeWorkGroupCount is at least 65535; CUDA/HIP y and z).
const maxGroups = 65535

// contract is a family's launch contract and verification, parsed once.
type contract struct {
	fam       *table.Family
	lets      []parsedLet
	workgroup *expr.Expr
	grid      [3]*expr.Expr
	groups    *expr.Expr
	buffers   []*expr.Expr
	aligns    []*expr.Expr
	args      []*expr.Expr
	// verification
	vlets                 []parsedLet
	terms                 *expr.Expr
	caseM, caseMTo, caseN []*expr.Expr
	caseK, caseWhen       []*expr.Expr
	letNames, vletNames   []string
}

type parsedLet struct {
	name string
	e    *expr.Expr
}

var (
	contractsMu sync.Mutex
	contracts   = map[string]*contract{}
)

func parseAny(src string) (*expr.Expr, error) {
	if src == "" {
		return nil, nil
	}
	return expr.ParseTrusted(src)
}

// contractOf parses (once) the launch contract of a family.
func contractOf(family string) (*contract, error) {
	contractsMu.Lock()
	defer contractsMu.Unlock()
	if c, ok := contracts[family]; ok {
		return c, nil
	}
	fam, err := familyRules(family)
	if err != nil {
		return nil, err
	}
	c := &contract{fam: fam}
	l := &fam.Launch
	p := func(src string) *expr.Expr {
		if err != nil {
			return nil
		}
		var e *expr.Expr
		e, err = parseAny(src)
		return e
	}
	for _, lt := range l.Let {
		c.lets = append(c.lets, parsedLet{lt.Name, p(lt.Expr)})
		c.letNames = append(c.letNames, lt.Name)
	}
	c.workgroup = p(l.Workgroup)
	if l.Groups != "" {
		c.groups = p(l.Groups)
	} else {
		for i := range l.Grid {
			c.grid[i] = p(l.Grid[i])
		}
	}
	for _, b := range l.Buffers {
		c.buffers = append(c.buffers, p(b.Bytes))
		c.aligns = append(c.aligns, p(b.Align))
	}
	for _, a := range l.Args {
		c.args = append(c.args, p(a.Expr))
	}
	vf := &fam.Verify
	for _, lt := range vf.Let {
		c.vlets = append(c.vlets, parsedLet{lt.Name, p(lt.Expr)})
		c.vletNames = append(c.vletNames, lt.Name)
	}
	c.terms = p(vf.Terms)
	for _, cs := range vf.Cases {
		c.caseM = append(c.caseM, p(cs.M))
		c.caseMTo = append(c.caseMTo, p(cs.MTo))
		c.caseN = append(c.caseN, p(cs.N))
		c.caseK = append(c.caseK, p(cs.K))
		c.caseWhen = append(c.caseWhen, p(cs.When))
	}
	if err != nil {
		return nil, fmt.Errorf("family %s: contract: %w", family, err)
	}
	if c.workgroup == nil || len(c.buffers) == 0 {
		return nil, fmt.Errorf("family %s has no launch contract in the table: regenerate (go generate ./...)", family)
	}
	contracts[family] = c
	return c, nil
}

// evalLets evaluates lets in order into env.
func evalLets(env *evalEnv, lets []parsedLet) error {
	for _, lt := range lets {
		v, err := lt.e.Eval(env)
		if err != nil {
			return err
		}
		env.setLet(lt.name, v)
	}
	return nil
}

// WorkgroupSize is v's workgroup size on dev (its contract's workgroup).
// It is 0 when the contract cannot be evaluated on dev.
func WorkgroupSize(v *table.Variant, dev Device) int {
	c, err := contractOf(v.Family)
	if err != nil {
		return 0
	}
	env := newEnv(Op{Family: v.Family}, dev, v)
	if evalLets(env, c.lets) != nil {
		return 0
	}
	w, err := c.workgroup.Eval(env)
	if err != nil || w.IsStr || w.Int < 0 || w.Int > 1<<20 {
		return 0
	}
	return int(w.Int)
}

// Plan computes the launch of v on dev for op (op.Family and op.Dtype may
// be left empty: they are the variant's), refusing what it cannot serve:
// a device that cannot run the variant (CheckDevice), an op outside the
// family or not eligible for the variant (the spec's rules, as Select
// applies them), sizes past 32 bits or grids past the device's limits.
func Plan(v *table.Variant, dev Device, op Op) (*Launch, error) {
	refuse := func(f string, a ...any) error { return &RefusedError{Variant: v.Name, Reason: fmt.Sprintf(f, a...)} }
	if op.Family == "" {
		op.Family = v.Family
	}
	if op.Dtype == "" {
		op.Dtype = v.Param("dtype")
	}
	if op.Family != v.Family || op.Dtype != v.Param("dtype") {
		return nil, refuse("the op is %s %s; the variant is %s %s", op.Family, op.Dtype, v.Family, v.Param("dtype"))
	}
	if err := op.Validate(); err != nil {
		return nil, refuse("%v", err)
	}
	c, err := contractOf(v.Family)
	if err != nil {
		return nil, refuse("%v", err)
	}
	if err := CheckDevice(v, dev); err != nil {
		return nil, err
	}
	rules, err := rulesFor(c.fam, v.Arch)
	if err != nil {
		return nil, refuse("%v", err)
	}
	env := newEnv(op, dev, v)
	for _, set := range [][]parsedRule{rules.outside, rules.eligible} {
		for _, r := range set {
			ok, err := r.e.Bool(env)
			if err != nil {
				return nil, refuse("%v", err)
			}
			if !ok {
				return nil, refuse("%s (m=%d n=%d k=%d fails %s)", r.why, op.M, op.N, op.K, r.e.Src)
			}
		}
	}
	if err := evalLets(env, c.lets); err != nil {
		return nil, refuse("%v", err)
	}
	num := func(e *expr.Expr, what string, lo, hi int64) (int64, error) {
		val, err := e.Eval(env)
		if err != nil {
			return 0, refuse("%s: %v", what, err)
		}
		if val.IsStr || val.Int < lo || val.Int > hi {
			return 0, refuse("%s is %s; the launch needs %d..%d", what, val, lo, hi)
		}
		return val.Int, nil
	}
	l := &Launch{Variant: v, Op: op}
	for i := 0; i < env.nlets; i++ {
		l.Lets = append(l.Lets, NamedValue{env.lets[i].name, env.lets[i].val.Int})
	}
	wg, err := num(c.workgroup, "workgroup size", 1, 1<<20)
	if err != nil {
		return nil, err
	}
	l.Workgroup = int(wg)
	if c.groups != nil {
		n, err := num(c.groups, "workgroup count", 1, maxGroups*maxGroups)
		if err != nil {
			return nil, err
		}
		gx := min(n, maxGroups)
		l.Groups = [3]uint32{uint32(gx), uint32((n + gx - 1) / gx), 1}
		l.Workgroups = int(n)
		env.setLet("grid_x", expr.Int(gx))
	} else {
		l.Workgroups = 1
		for i, g := range c.grid {
			hi := int64(maxGroups)
			if i == 0 {
				hi = 1<<31 - 1 // x: CUDA/HIP allow 2^31-1; Vulkan devices in use report as much
			}
			n, err := num(g, fmt.Sprintf("grid[%d]", i), 1, hi)
			if err != nil {
				return nil, err
			}
			l.Groups[i] = uint32(n)
			l.Workgroups *= int(n)
		}
	}
	for i, b := range c.fam.Launch.Buffers {
		n, err := num(c.buffers[i], "buffer "+b.Name+" size", 0, 1<<32-1)
		if err != nil {
			return nil, err
		}
		l.Buffers = append(l.Buffers, PlannedBuffer{Buffer: b, Size: int(n)})
	}
	for i, a := range c.fam.Launch.Args {
		if a.Backend != "" && a.Backend != dev.Backend {
			continue
		}
		n, err := num(c.args[i], "argument "+a.Name, 0, 1<<32-1)
		if err != nil {
			return nil, err
		}
		l.Args = append(l.Args, uint32(n))
		l.ArgNames = append(l.ArgNames, a.Name)
	}
	return l, nil
}

// String is the launch in one line: grid, workgroup, buffer sizes, args.
func (l *Launch) String() string {
	s := fmt.Sprintf("grid %dx%dx%d of %d lanes; buffers", l.Groups[0], l.Groups[1], l.Groups[2], l.Workgroup)
	for _, b := range l.Buffers {
		s += fmt.Sprintf(" %s(%s)=%d", b.Name, b.Dir, b.Size)
	}
	s += "; args"
	for i, a := range l.Args {
		s += fmt.Sprintf(" %s=%d", l.ArgNames[i], a)
	}
	return s
}

// Buffer returns the planned buffer named name, or nil.
func (l *Launch) Buffer(name string) *PlannedBuffer {
	for i := range l.Buffers {
		if l.Buffers[i].Name == name {
			return &l.Buffers[i]
		}
	}
	return nil
}

// Output is the one buffer the kernels write for the caller.
func (l *Launch) Output() *PlannedBuffer {
	for i := range l.Buffers {
		if l.Buffers[i].Dir == "out" {
			return &l.Buffers[i]
		}
	}
	return nil
}

// SpecConsts are the Vulkan specialization constants of the launch's
// pipeline: the variant's (table.Variant.Spec), with the one the contract
// names for the workgroup size (launch.workgroup.param) set to Workgroup.
// kgen_select.h's kg_plan fills kg_launch.spec the same way. Empty for HIP.
func (l *Launch) SpecConsts() []table.SpecConst {
	if len(l.Variant.Spec) == 0 {
		return nil
	}
	param := ""
	if fam, err := familyRules(l.Variant.Family); err == nil {
		param = fam.Launch.WorkgroupParam
	}
	out := make([]table.SpecConst, len(l.Variant.Spec))
	for i, sc := range l.Variant.Spec {
		out[i] = sc
		if sc.Param == param {
			out[i].Value = uint32(l.Workgroup)
		}
	}
	return out
}

// Push is Args as little-endian bytes (Vulkan push constants).
func (l *Launch) Push() []byte {
	b := make([]byte, 4*len(l.Args))
	for i, a := range l.Args {
		binary.LittleEndian.PutUint32(b[4*i:], a)
	}
	return b
}

// KernelArgs are Args as the int32 kernel arguments of the HIP sources.
func (l *Launch) KernelArgs() []any {
	out := make([]any, len(l.Args))
	for i, a := range l.Args {
		out[i] = int32(a)
	}
	return out
}

// CheckBuffers refuses a launch whose buffers (sizes in bytes, in buffer
// order) are smaller than it needs.
func (l *Launch) CheckBuffers(sizes []int) error {
	if len(sizes) != len(l.Buffers) {
		return &RefusedError{Variant: l.Variant.Name, Reason: fmt.Sprintf("%d buffers bound; the kernels take %d", len(sizes), len(l.Buffers))}
	}
	for i, b := range l.Buffers {
		if sizes[i] < b.Size {
			return &RefusedError{Variant: l.Variant.Name, Reason: fmt.Sprintf("buffer %s holds %d bytes, the shape needs %d", b.Name, sizes[i], b.Size)}
		}
	}
	return nil
}

func dtypeOf(name string) *table.Dtype {
	for i := range generatedDtypes() {
		if generatedDtypes()[i].Name == name {
			return &generatedDtypes()[i]
		}
	}
	return nil
}
