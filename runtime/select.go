// Package runtime picks a generated variant for a device and an op, explains
// the pick, and checks artifacts before they reach a driver. The rules it
// applies are data from the spec files (copied into generated/ by gen); this
// package only interprets them.
package runtime

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kgen-dev/kgen/generated"
	"github.com/kgen-dev/kgen/runtime/expr"
	"github.com/kgen-dev/kgen/runtime/table"
)

// Device is what selection needs to know about a target.
type Device struct {
	Backend string // "hip" or "vulkan"
	Arch    string // HIP arch or Vulkan device class
	Name    string // human name, for messages
	// Facts rules may use; for Vulkan, Wave is the device's subgroup size.
	Wave, ComputeUnits, SharedMemory int
	// MaxWorkgroup bounds workgroup size (0: no bound known).
	MaxWorkgroup int
	// MinSubgroup is the smallest subgroup the device may run (Vulkan).
	MinSubgroup int
	// Driver identifies the driver version, for the tuning cache.
	Driver string
	// Lacks names, comma-separated, the shader features a Vulkan device
	// lacks among those a SPIR-V capability may need (vulkan.LackedFeatures):
	// a variant whose blob declares such a capability is refused. Empty for
	// a device described from its class's facts.
	Lacks string
}

// ArchDevice describes a HIP arch (or Vulkan class) from its spec facts.
// A feature suffix, as HIP reports arch names ("gfx1151:sramecc-:xnack-"),
// is ignored, as kgen_select.h's kg_arch_device ignores it.
func ArchDevice(name string) (Device, error) {
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	for _, a := range generated.Archs {
		if a.Name == name {
			return Device{Backend: a.Backend, Arch: a.Name, Name: a.Name, Wave: a.Wave, ComputeUnits: a.ComputeUnits,
				SharedMemory: a.SharedMemory, MinSubgroup: a.Wave}, nil
		}
	}
	var names []string
	for _, a := range generated.Archs {
		names = append(names, a.Name)
	}
	return Device{}, fmt.Errorf("unknown arch %q; known: %s", name, strings.Join(names, ", "))
}

// Op is one call to serve: y[M][N] = x[M][K] W[N][K]^T for a GEMV.
type Op struct {
	Family  string
	Dtype   string
	M, N, K int
	// Align is the alignment, in elements, of the buffer offsets the caller
	// will bind (W and X): a positive number of elements dividing both
	// offsets (AlignOf computes it), or 0 for fully aligned (offset 0).
	// Anything else is invalid: Select refuses it with an InvalidOpError.
	Align int
}

func (o Op) String() string {
	s := fmt.Sprintf("%s %s m=%d n=%d k=%d", o.Family, o.Dtype, o.M, o.N, o.K)
	if o.Align != 0 {
		s += fmt.Sprintf(" align=%d", o.Align)
	}
	return s
}

// align is the value rules see as align: Align, or 1<<20 (every pack and
// load width divides it) for 0. Callers validate the op first (Validate):
// a negative Align never reaches the rules.
func (o Op) align() int {
	if o.Align <= 0 {
		return 1 << 20
	}
	return o.Align
}

// ErrInvalidOp matches every InvalidOpError.
var ErrInvalidOp = errors.New("invalid op")

// InvalidOpError is an op that no rule is asked about because one of its
// fields is outside its domain (a negative Align): a caller's bug, not an
// op for another path (NotEligibleError) or another device (NoVariantError).
type InvalidOpError struct {
	Op     Op
	Field  string
	Reason string
}

func (e *InvalidOpError) Error() string {
	return fmt.Sprintf("invalid op %s: %s %s", e.Op, e.Field, e.Reason)
}

func (e *InvalidOpError) Is(target error) bool { return target == ErrInvalidOp }

// Validate refuses an op whose fields are outside their domain, before any
// rule sees it. Today that is a negative Align: no offsets have one (AlignOf
// never returns one), the rules would read it as aligned (align maps it to
// 1<<20, and -4 % 4 == 0 besides), and the variant picked could then load
// misaligned buffers.
func (o Op) Validate() error {
	if o.Align < 0 {
		return &InvalidOpError{Op: o, Field: "align", Reason: fmt.Sprintf("is %d: want a positive number of elements dividing the W and X offsets, or 0 for offset 0 (runtime.AlignOf)", o.Align)}
	}
	return nil
}

// Candidate is a variant with its verdict.
type Candidate struct {
	Variant *table.Variant
	// Excluded holds why the variant cannot serve the op ("" if it can).
	Excluded string
	// Keys are its preference keys (lower wins), when eligible.
	Keys []int64
}

// Choice is Select's answer.
type Choice struct {
	Variant *table.Variant
	// Heuristic is the spec rules' pick (Variant, unless a tuned pick or an
	// override replaced it).
	Heuristic *table.Variant
	// TuneEntry is the tuning measurement behind a tuned pick.
	TuneEntry *TuneEntry
	Op        Op
	Device    Device
	// Reasons says why this variant won.
	Reasons []string
	// Candidates lists every variant considered, winner first, then the
	// eligible ones in preference order, then the excluded.
	Candidates []Candidate
	// Forced is set when KGEN_FORCE narrowed the candidates.
	Forced string
	// Tuned is set when the tuning cache chose the variant.
	Tuned bool
}

// NotEligibleError says the op is outside what the family serves.
type NotEligibleError struct {
	Op     Op
	Reason string // the failed rule's why
	Rule   string // the failed rule
}

func (e *NotEligibleError) Error() string {
	return fmt.Sprintf("not eligible: %s (%s fails %s)", e.Reason, e.Op, e.Rule)
}

// NoVariantError says no variant of the table can serve the op on the device.
type NoVariantError struct {
	Op         Op
	Device     Device
	Candidates []Candidate
}

func (e *NoVariantError) Error() string {
	msg := fmt.Sprintf("no variant serves %s on %s/%s", e.Op, e.Device.Backend, e.Device.Arch)
	if len(e.Candidates) == 0 {
		return msg + ": the table has no variant of this family and dtype for it"
	}
	why := map[string]int{}
	for _, c := range e.Candidates {
		why[c.Excluded]++
	}
	var parts []string
	for w, n := range why {
		parts = append(parts, fmt.Sprintf("%d: %s", n, w))
	}
	sort.Strings(parts)
	return msg + " (" + strings.Join(parts, "; ") + ")"
}

// rules parsed once.
type ruleSet struct {
	outside, eligible, prefer []parsedRule
}

type parsedRule struct {
	e   *expr.Expr
	why string
}

var ruleNames = map[string]bool{"m": true, "n": true, "k": true, "align": true, "wave": true, "compute_units": true, "shared_memory": true}

func parseRules(rs []table.Rule, names map[string]bool) ([]parsedRule, error) {
	var out []parsedRule
	for _, r := range rs {
		e, err := expr.Parse(r.Expr, expr.Decl{Names: names, Funcs: expr.DtypeFuncSet()})
		if err != nil {
			return nil, fmt.Errorf("rule %q: %w", r.Expr, err)
		}
		out = append(out, parsedRule{e, r.Why})
	}
	return out, nil
}

// compiled holds a family's rules parsed once, and an arch's prefer keys.
type compiled struct {
	outside, eligible, prefer []parsedRule
	// modelKeys are the indices of the prefer keys that use the arch's
	// model constants; timeKeys those of them that are predicted times
	// (formulas over maxQuotedModelKey bytes; the shorter ones compare an
	// op with fitted thresholds, sm90's mmvq keys, and read as rules).
	modelKeys, timeKeys []int
}

var (
	compiledMu sync.Mutex
	compiledBy = map[string]*compiled{} // family + "/" + arch
)

// rulesFor parses (once) the rules for a family on an arch. Names are those
// of the op, the arch facts and every parameter the family's variants have:
// the generator validated the rules against the spec already.
func rulesFor(fam *table.Family, arch string) (*compiled, error) {
	compiledMu.Lock()
	defer compiledMu.Unlock()
	key := fam.Name + "/" + arch
	if c, ok := compiledBy[key]; ok {
		return c, nil
	}
	names := map[string]bool{}
	for k := range ruleNames {
		names[k] = true
	}
	for i := range generated.Variants {
		if generated.Variants[i].Family == fam.Name {
			for _, p := range generated.Variants[i].Params {
				names[p.N] = true
			}
			break
		}
	}
	c := &compiled{}
	var err error
	if c.outside, err = parseRules(fam.Outside, ruleNames); err != nil {
		return nil, err
	}
	if c.eligible, err = parseRules(fam.Eligible, names); err != nil {
		return nil, err
	}
	model := map[string]bool{}
	for _, m := range archModel(arch) {
		names[m.Name], model[m.Name] = true, true // prefer keys only
	}
	pr := preferRules(fam, arch)
	if c.prefer, err = parseRules(pr, names); err != nil {
		return nil, err
	}
	for i, r := range c.prefer {
		if slices.ContainsFunc(r.e.Names(), func(n string) bool { return model[n] }) {
			c.modelKeys = append(c.modelKeys, i)
			if len(pr[i].Expr) > maxQuotedModelKey {
				c.timeKeys = append(c.timeKeys, i)
			}
		}
	}
	compiledBy[key] = c
	return c, nil
}

func familyRules(name string) (*table.Family, error) {
	for i := range generated.Families {
		if generated.Families[i].Name == name {
			return &generated.Families[i], nil
		}
	}
	return nil, fmt.Errorf("unknown family %q", name)
}

func archPrefer(arch, family string) []table.Rule {
	for _, a := range generated.Archs {
		if a.Name != arch {
			continue
		}
		for _, p := range a.Prefer {
			if p.Family == family {
				return p.Rules
			}
		}
	}
	return nil
}

// dtypeFuncs are the functions rules call on a dtype name.
var dtypeFuncTable = buildDtypeFuncs()

func dtypeFuncs() map[string]func(expr.Value) (expr.Value, error) { return dtypeFuncTable }

func buildDtypeFuncs() map[string]func(expr.Value) (expr.Value, error) {
	return expr.DtypeFuncs(func(name string) (expr.DtypeFacts, bool) {
		for _, d := range generated.Dtypes {
			if d.Name == name {
				return expr.DtypeFacts{WeightBytes: d.WeightBytes, ActBytes: d.ActBytes, Scaled: d.Scaled, WeightBlock: d.WeightBlock, ActBlock: d.ActBlock}, true
			}
		}
		return expr.DtypeFacts{}, false
	})
}

// Env is the expression environment of (op, device, variant).
func Env(op Op, dev Device, v *table.Variant) expr.Env { return newEnv(op, dev, v) }

// evalEnv looks names up in the op and device, the lets computed so far,
// then the variant's typed parameters: no maps, no parsing, so evaluating
// a rule for each of thousands of candidates allocates nothing.
type evalEnv struct {
	op   Op
	dev  *Device
	v    *table.Variant
	lets [12]struct {
		name string
		val  expr.Value
	}
	nlets int
	// native is 1 when the variant is of the device's own arch or class
	// (verification cases).
	native int64
	// model holds the device arch's model constants (its prefer keys use
	// them by name).
	model []table.Const
}

func newEnv(op Op, dev Device, v *table.Variant) *evalEnv {
	return &evalEnv{op: op, dev: &dev, v: v, model: archModel(dev.Arch)}
}

// archModel returns an arch's model constants (nil for none).
func archModel(arch string) []table.Const {
	for i := range generated.Archs {
		if generated.Archs[i].Name == arch {
			return generated.Archs[i].Model
		}
	}
	return nil
}

// ModelConsts returns the model constants of an arch's file (templates/archs
// model:), which its prefer keys use by name; nil when it has none.
func ModelConsts(arch string) []table.Const { return append([]table.Const(nil), archModel(arch)...) }

// PreferRules returns the prefer keys Select applies for a family on an
// arch, in order: the arch's, then the family's.
func PreferRules(arch, family string) ([]table.Rule, error) {
	fam, err := familyRules(family)
	if err != nil {
		return nil, err
	}
	return preferRules(fam, arch), nil
}

// preferRules are the arch's prefer keys for the family, then the family's.
func preferRules(fam *table.Family, arch string) []table.Rule {
	return append(append([]table.Rule{}, archPrefer(arch, fam.Name)...), fam.Prefer...)
}

// ModelKeys returns the indices, among PreferRules(arch, family), of the
// keys that use the arch's model constants (predicted times).
func ModelKeys(arch, family string) []int {
	c := compiledKeys(arch, family)
	if c == nil {
		return nil
	}
	return append([]int(nil), c.modelKeys...)
}

// compiledKeys is the family's compiled rules for arch, nil where either is
// unknown or the rules do not compile (Select reports those).
func compiledKeys(arch, family string) *compiled {
	fam, err := familyRules(family)
	if err != nil {
		return nil
	}
	c, err := rulesFor(fam, arch)
	if err != nil {
		return nil
	}
	return c
}

// setLet binds a let (or grid_x); at most 12 per contract.
func (e *evalEnv) setLet(name string, val expr.Value) {
	for i := 0; i < e.nlets; i++ {
		if e.lets[i].name == name {
			e.lets[i].val = val
			return
		}
	}
	if e.nlets < len(e.lets) {
		e.lets[e.nlets].name, e.lets[e.nlets].val = name, val
		e.nlets++
	}
}

func (e *evalEnv) Lookup(name string) (expr.Value, bool) {
	switch name {
	case "m":
		return expr.Int(int64(e.op.M)), true
	case "n":
		return expr.Int(int64(e.op.N)), true
	case "k":
		return expr.Int(int64(e.op.K)), true
	case "align":
		return expr.Int(int64(e.op.align())), true
	case "wave":
		return expr.Int(int64(e.dev.Wave)), true
	case "compute_units":
		return expr.Int(int64(e.dev.ComputeUnits)), true
	case "shared_memory":
		return expr.Int(int64(e.dev.SharedMemory)), true
	case "native":
		return expr.Int(e.native), true
	}
	for i := 0; i < e.nlets; i++ {
		if e.lets[i].name == name {
			return e.lets[i].val, true
		}
	}
	if e.v != nil {
		if p, ok := e.v.Lookup(name); ok {
			if p.IsStr() {
				return expr.Str(p.S), true
			}
			return expr.Int(p.I), true
		}
	}
	for _, c := range e.model {
		if c.Name == name {
			return expr.Int(c.Value), true
		}
	}
	return expr.Value{}, false
}

func (e *evalEnv) Call(fn string, arg expr.Value) (expr.Value, error) {
	f, ok := dtypeFuncs()[fn]
	if !ok {
		return expr.Value{}, fmt.Errorf("no function %s", fn)
	}
	return f(arg)
}

// ErrForce is a bad KGEN_FORCE value.
var ErrForce = errors.New("KGEN_FORCE")

// Select picks the variant for op on dev: it applies the family's outside
// rules, then each variant's eligibility rules and device limits, then the
// arch's and family's preference keys. Overrides come from KGEN_FORCE.
// An invalid op (a negative Align) is an *InvalidOpError
// (errors.Is(err, ErrInvalidOp)); no rule sees it.
// A valid entry of the tuning cache ($KGEN_TUNE_CACHE; see Tune) replaces
// the heuristic pick.
func Select(dev Device, op Op) (*Choice, error) {
	ch, err := SelectWith(dev, op, Force())
	if err != nil || ch.Forced != "" {
		return ch, err
	}
	ch.applyTuned(activeTuneCache())
	return ch, nil
}

// applyTuned switches to the tuned winner when the cache has a valid entry.
func (ch *Choice) applyTuned(c *TuneCache) {
	cand, e := c.lookup(ch.Device, ch.Op, ch.Candidates)
	if cand == nil {
		return
	}
	ch.Variant, ch.Tuned, ch.TuneEntry = cand.Variant, true, e
	ch.Reasons = append([]string{fmt.Sprintf("tuned on %s: %.1f us, fastest of %d timed (heuristic pick %s: %.1f us)",
		e.Device, e.US, e.Candidates, e.Heuristic, e.HeurUS)}, ch.Reasons...)
}

// SelectWith is Select with an explicit override (nil: none). An invalid op
// (Op.Validate) is an *InvalidOpError, before any rule is evaluated.
// Answers are memoized per (device, op, override) (memo.go): a repeated
// call costs a map lookup and a copy of the Choice, whose Candidates are
// shared between calls and must not be modified.
func SelectWith(dev Device, op Op, force *Override) (*Choice, error) {
	if ch, err, ok := memoGet(dev, op, force); ok {
		return ch, err
	}
	ch, err := selectUncached(dev, op, force)
	return memoPut(dev, op, force, ch, err)
}

// selectUncached is SelectWith without the memo.
func selectUncached(dev Device, op Op, force *Override) (*Choice, error) {
	if err := op.Validate(); err != nil {
		return nil, err
	}
	fam, err := familyRules(op.Family)
	if err != nil {
		return nil, err
	}
	rules, err := rulesFor(fam, dev.Arch)
	if err != nil {
		return nil, err
	}
	c, err := contractOf(op.Family)
	if err != nil {
		return nil, err
	}
	env := newEnv(op, dev, nil)
	for _, r := range rules.outside {
		ok, err := r.e.Bool(env)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &NotEligibleError{Op: op, Reason: r.why, Rule: r.e.Src}
		}
	}
	var cands []Candidate
	for _, v := range candidates(op.Family, dev.Backend, dev.Arch, op.Dtype) {
		cands = append(cands, Candidate{Variant: v})
	}
	if len(cands) == 0 {
		return nil, &NoVariantError{Op: op, Device: dev}
	}
	forced := ""
	if force != nil {
		// Validated whatever its family: a typo'd family must not be a
		// silent no-op (an A/B run comparing a configuration with itself).
		if err := force.Validate(); err != nil {
			return nil, err
		}
		if force.Family == op.Family {
			forced = force.String()
		}
	}
	var eligible []Candidate
	var excluded []Candidate
	keyBuf := make([]int64, len(cands)*len(rules.prefer))
	for i, cand := range cands {
		env.v, env.nlets = cand.Variant, 0
		cand.Excluded = exclude(env, c, rules, force)
		if cand.Excluded != "" {
			excluded = append(excluded, cand)
			continue
		}
		cand.Keys = keyBuf[i*len(rules.prefer) : (i+1)*len(rules.prefer)]
		if err := preferKeys(env, rules, cand.Keys); err != nil {
			return nil, err
		}
		eligible = append(eligible, cand)
	}
	if len(eligible) == 0 {
		return nil, &NoVariantError{Op: op, Device: dev, Candidates: excluded}
	}
	sort.SliceStable(eligible, func(i, j int) bool {
		a, b := eligible[i].Keys, eligible[j].Keys
		for k := range a {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return eligible[i].Variant.Name < eligible[j].Variant.Name
	})
	win := eligible[0]
	ch := &Choice{Variant: win.Variant, Heuristic: win.Variant, Op: op, Device: dev, Forced: forced, Candidates: append(eligible, excluded...)}
	ch.Reasons = reasons(win, eligible, fam, dev)
	if forced != "" {
		ch.Reasons = append([]string{"KGEN_FORCE=" + forced + " narrowed the candidates"}, ch.Reasons...)
	}
	return ch, nil
}

// exclude returns why env's variant cannot serve env's op on its device,
// or "".
func exclude(env *evalEnv, c *contract, rules *compiled, force *Override) string {
	if force != nil && force.Family == env.op.Family && !force.Matches(env.v) {
		return "not the KGEN_FORCE=" + force.String() + " variant"
	}
	for _, r := range rules.eligible {
		ok, err := r.e.Bool(env)
		if err != nil {
			return err.Error()
		}
		if !ok {
			return r.why + " (" + r.e.Src + ")"
		}
	}
	return deviceLimitsEnv(env, c)
}

// deviceLimits checks what the device must support for the variant to run.
func deviceLimits(v *table.Variant, dev Device) string {
	c, err := contractOf(v.Family)
	if err != nil {
		return err.Error()
	}
	return deviceLimitsEnv(newEnv(Op{Family: v.Family}, dev, v), c)
}

// deviceLimitsEnv is deviceLimits in an environment (its lets are
// evaluated here).
func deviceLimitsEnv(env *evalEnv, c *contract) string {
	if err := evalLets(env, c.lets); err != nil {
		return err.Error()
	}
	w, err := c.workgroup.Eval(env)
	if err != nil {
		return err.Error()
	}
	dev := env.dev
	if w.IsStr || w.Int < 1 {
		return fmt.Sprintf("workgroup size %s on a device with subgroup %d", w, dev.Wave)
	}
	if dev.MaxWorkgroup > 0 && w.Int > int64(dev.MaxWorkgroup) {
		return fmt.Sprintf("workgroup of %d lanes exceeds the device's %d", w.Int, dev.MaxWorkgroup)
	}
	if dev.Backend == "vulkan" && dev.MinSubgroup > 0 && dev.MinSubgroup < 8 {
		return fmt.Sprintf("subgroups of %d lanes; the kernels need at least 8", dev.MinSubgroup)
	}
	if dev.Backend == "vulkan" && dev.Lacks != "" && env.v != nil {
		lacks := strings.Split(dev.Lacks, ",")
		for _, f := range blobFeatures(env.v) {
			if slices.Contains(lacks, f) {
				return fmt.Sprintf("its SPIR-V needs %s, which the device lacks", f)
			}
		}
	}
	return ""
}

// preferKeys fills keys with env's variant's preference keys.
func preferKeys(env *evalEnv, rules *compiled, keys []int64) error {
	for i, r := range rules.prefer {
		val, err := r.e.Eval(env)
		if err != nil {
			return err
		}
		keys[i] = val.Int
	}
	return nil
}

// reasons explains the winner: for each preference key, whether it decided
// against the runner-up.
func reasons(win Candidate, eligible []Candidate, fam *table.Family, dev Device) []string {
	rs := preferRules(fam, dev.Arch)
	out := []string{fmt.Sprintf("eligible: passes all %d eligibility rules of %s", len(fam.Eligible), fam.Name)}
	if len(eligible) == 1 {
		return append(out, "the only eligible variant")
	}
	next := eligible[1]
	label := keyLabels(dev.Arch, fam.Name, rs)
	for i, r := range rs {
		if win.Keys[i] != next.Keys[i] {
			out = append(out, fmt.Sprintf("preferred over %s by %s: %s (%d < %d)", next.Variant.Name, label[i], r.Why, win.Keys[i], next.Keys[i]))
			return out
		}
	}
	return append(out, fmt.Sprintf("ties with %s on every preference key; the name decides", next.Variant.Name))
}

// keyLabels names prefer keys in explanations: the quoted rule, or for a
// predicted-time key (TimeKeys, a long formula) "the model's predicted
// time (key N)".
func keyLabels(arch, family string, rs []table.Rule) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = strconv.Quote(r.Expr)
	}
	for _, i := range TimeKeys(arch, family) {
		if i < len(out) {
			out[i] = fmt.Sprintf("the model's predicted time (prefer key %d)", i+1)
		}
	}
	return out
}

// TimeKeys returns the model keys (ModelKeys) that are predicted times in
// ns: formulas over maxQuotedModelKey bytes. The shorter ones compare an
// op with fitted thresholds (sm90's mmvq keys) and are read as rules.
func TimeKeys(arch, family string) []int {
	c := compiledKeys(arch, family)
	if c == nil {
		return nil
	}
	return append([]int(nil), c.timeKeys...)
}

// maxQuotedModelKey is the longest model key read as a rule (the longest
// threshold key is about 300 bytes, a time formula thousands).
const maxQuotedModelKey = 600

// LostBy says why an eligible candidate lost to the winner: the first
// preference key where they differ.
func (c *Choice) LostBy(cand Candidate) string {
	if cand.Excluded != "" {
		return "excluded: " + cand.Excluded
	}
	fam, err := familyRules(c.Op.Family)
	if err != nil {
		return err.Error() // a Choice of a family the table lacks: not one Select made
	}
	rs := preferRules(fam, c.Device.Arch)
	var win Candidate
	for _, x := range c.Candidates {
		if x.Variant == c.Heuristic {
			win = x
		}
	}
	label := keyLabels(c.Device.Arch, c.Op.Family, rs)
	for i, r := range rs {
		if i < len(cand.Keys) && cand.Keys[i] != win.Keys[i] {
			return fmt.Sprintf("lost on %s (%s): %d vs %d", label[i], r.Why, cand.Keys[i], win.Keys[i])
		}
	}
	return "tied on every key; lost on name order"
}

var (
	indexOnce sync.Once
	index     map[[4]string][]*table.Variant
)

// candidates returns the table's variants of a family, backend, arch and
// dtype, from an index built once.
func candidates(family, backend, arch, dtype string) []*table.Variant {
	indexOnce.Do(func() {
		index = map[[4]string][]*table.Variant{}
		for i := range generated.Variants {
			v := &generated.Variants[i]
			k := [4]string{v.Family, v.Backend, v.Arch, v.Param("dtype")}
			index[k] = append(index[k], v)
		}
	})
	return index[[4]string{family, backend, arch, dtype}]
}
