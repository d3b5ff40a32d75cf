package expand

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kgen-dev/kgen/gen/spec"
	"github.com/kgen-dev/kgen/runtime/expr"
)

// CheckRules evaluates every selection rule (outside, eligible, and the
// arch's and family's prefer keys) against every variant and arch it can
// meet, so that a rule that cannot be evaluated (a division by zero, a
// prefer key that is a string, an outside rule naming a parameter) is a
// spec error here rather than a failed selection in Go or a trap in a C
// host. The op's m, n, k and align are unknown until run time; they are
// drawn from a representative set (opPoints), and op points the family's
// outside rules reject are skipped, as selection skips them. A rule is
// evaluated only where selection evaluates it: an eligible rule when the
// rules before it hold, a prefer key on eligible variants.
func CheckRules(s *spec.Spec, vs []*Variant) error {
	type fa struct{ family, arch string }
	groups := map[fa][]*Variant{}
	for _, v := range vs {
		k := fa{v.Family.Name, v.Arch.Name}
		groups[k] = append(groups[k], v)
	}
	for _, f := range s.Families {
		for _, a := range s.Archs {
			group := groups[fa{f.Name, a.Name}]
			if len(group) == 0 {
				continue
			}
			if err := checkFamilyArch(s, f, a, group); err != nil {
				return err
			}
		}
	}
	return nil
}

// opPoint is one representative op.
type opPoint struct{ m, n, k, align int64 }

func (p opPoint) String() string {
	return fmt.Sprintf("m=%d n=%d k=%d align=%d", p.m, p.n, p.k, p.align)
}

func (p opPoint) get(name string) (int64, bool) {
	switch name {
	case "m":
		return p.m, true
	case "n":
		return p.n, true
	case "k":
		return p.k, true
	case "align":
		return p.align, true
	}
	return 0, false
}

// opPoints is the representative op set: m 1..8, n and k among 1, 7, 4096
// and 151936 (a vocabulary), align 1..16 and 1<<20 (what the runtime passes
// for offset 0), and for m, n and k each positive integer of the family's
// outside rules and its neighbors, so that their bounds and moduli (k % 256
// == 0) are met on both sides.
func opPoints(f *spec.Family) (ms, ns, ks, aligns []int64) {
	ms = []int64{1, 2, 3, 4, 5, 6, 7, 8}
	ns = []int64{1, 7, 4096, 151936}
	ks = []int64{1, 7, 4096, 151936}
	aligns = []int64{1, 2, 4, 8, 16, 1 << 20}
	if f.Select != nil {
		for _, r := range f.Select.Outside {
			for _, c := range r.Expr.Ints() {
				for _, x := range []int64{c - 1, c, c + 1} {
					if x > 0 {
						ms, ns, ks = addInt(ms, x), addInt(ns, x), addInt(ks, x)
					}
				}
			}
		}
	}
	return ms, ns, ks, aligns
}

func addInt(xs []int64, x int64) []int64 {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// ruleEnv is a variant's (or no variant's) parameters and the arch's facts
// with an op point, as selection sees them.
func ruleEnv(s *spec.Spec, a *spec.Arch, params map[string]string, p opPoint) expr.MapEnv {
	env := Env(s, a, params)
	delete(env.Vars, "target") // constraints only: selection never sees it
	for _, c := range a.Model {
		env.Vars[c.Name] = expr.Int(c.Value)
	}
	setOp(env, p)
	return env
}

// setOp binds the op's names (m, n, k, align) to p's values.
func setOp(env expr.MapEnv, p opPoint) {
	for _, n := range spec.OpNames {
		v, _ := p.get(n)
		env.Vars[n] = expr.Int(v)
	}
}

func checkFamilyArch(s *spec.Spec, f *spec.Family, a *spec.Arch, group []*Variant) error {
	var outside, eligible, prefer []*spec.Rule
	if f.Select != nil {
		outside, eligible = f.Select.Outside, f.Select.Eligible
		prefer = f.Select.Prefer
	}
	prefer = append(append([]*spec.Rule{}, a.Prefer[f.Name]...), prefer...)
	if len(outside)+len(eligible)+len(prefer) == 0 {
		return nil
	}
	// Outside rules see the op and the arch, no variant; in order, each
	// only where the ones before it hold.
	ms, ns, ks, aligns := opPoints(f)
	var points []opPoint
	for _, m := range ms {
		for _, n := range ns {
			for _, k := range ks {
				for _, al := range aligns {
					p := opPoint{m, n, k, al}
					ok, rf := holds(outside, ruleEnv(s, a, nil, p))
					if rf != nil {
						return ruleError(rf.rule, rf.err, "outside", "", a, p, " (outside rules see only the op and the arch facts)")
					}
					if ok {
						points = append(points, p)
					}
				}
			}
		}
	}
	if len(points) == 0 {
		return nil
	}
	c := &ruleCheck{s: s, a: a, group: group, points: points}
	for i, r := range eligible {
		if err := c.check(r, "eligible", eligible[:i], false); err != nil {
			return err
		}
	}
	for _, r := range prefer {
		if err := c.check(r, "prefer", eligible, true); err != nil {
			return err
		}
	}
	return nil
}

// ruleFailure is a rule that failed to evaluate.
type ruleFailure struct {
	rule *spec.Rule
	err  error
}

// holds evaluates rules in order, as selection does: false at the first
// that fails, a *ruleFailure at the first that cannot be evaluated.
func holds(rules []*spec.Rule, env expr.MapEnv) (bool, *ruleFailure) {
	for _, r := range rules {
		ok, err := r.Expr.Bool(env)
		if err != nil {
			return false, &ruleFailure{r, err}
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

type ruleCheck struct {
	s      *spec.Spec
	a      *spec.Arch
	group  []*Variant
	points []opPoint
}

// check evaluates r on every (variant, op point) where guards hold. The
// rule depends only on the names it uses, so it is first evaluated once
// per distinct value of those names; only a combination that fails is
// looked for among the variants and points the guards admit.
func (c *ruleCheck) check(r *spec.Rule, kind string, guards []*spec.Rule, key bool) error {
	names := r.Expr.Names()
	vproj := distinct(len(c.group), func(i int) string { return c.paramKey(c.group[i], names) })
	oproj := distinct(len(c.points), func(i int) string { return opKey(c.points[i], names) })
	failing := map[[2]string]error{}
	for _, vi := range vproj {
		// one environment a variant, the op's names set per point: an
		// arch's model key names nearly every parameter and op value, so
		// the projections above leave variants x points evaluations
		v := c.group[vi]
		env := ruleEnv(c.s, c.a, v.Params, opPoint{})
		for _, oi := range oproj {
			p := c.points[oi]
			setOp(env, p)
			if err := evalRule(r, env, key); err != nil {
				failing[[2]string{c.paramKey(v, names), opKey(p, names)}] = err
			}
		}
	}
	if len(failing) == 0 {
		return nil
	}
	for _, v := range c.group {
		vk := c.paramKey(v, names)
		for _, p := range c.points {
			err, bad := failing[[2]string{vk, opKey(p, names)}]
			if !bad {
				continue
			}
			ok, gerr := holds(guards, ruleEnv(c.s, c.a, v.Params, p))
			if gerr != nil || !ok {
				continue // a guard failing to evaluate is reported on its own
			}
			return ruleError(r, err, kind, v.Name, c.a, p, "")
		}
	}
	return nil
}

// evalRule evaluates a condition, or a prefer key (which must be an integer).
func evalRule(r *spec.Rule, env expr.MapEnv, key bool) error {
	if !key {
		_, err := r.Expr.Bool(env)
		return err
	}
	v, err := r.Expr.Eval(env)
	if err == nil && v.IsStr {
		err = fmt.Errorf("%s: is the string %s, want an integer (lower wins)", r.Expr.Src, v)
	}
	return err
}

func (c *ruleCheck) paramKey(v *Variant, names []string) string {
	var b strings.Builder
	for _, n := range names {
		if val, ok := v.Params[n]; ok {
			b.WriteString(n + "=" + val + " ")
		}
	}
	return b.String()
}

func opKey(p opPoint, names []string) string {
	var b strings.Builder
	for _, n := range names {
		if v, ok := p.get(n); ok {
			b.WriteString(n + "=" + strconv.FormatInt(v, 10) + " ")
		}
	}
	return b.String()
}

// distinct returns the index of the first of each distinct key, in order.
func distinct(n int, key func(int) string) []int {
	seen := map[string]bool{}
	var out []int
	for i := 0; i < n; i++ {
		if k := key(i); !seen[k] {
			seen[k] = true
			out = append(out, i)
		}
	}
	return out
}

// ruleError is a spec error at the rule: which evaluation failed and why.
func ruleError(r *spec.Rule, err error, kind, variant string, a *spec.Arch, p opPoint, hint string) error {
	msg := strings.TrimPrefix(err.Error(), r.Expr.Src+": ")
	on := "on " + a.Name
	if variant != "" {
		on = "for " + variant + " " + on
	}
	return &Error{r.Pos, fmt.Sprintf("%s rule %q cannot be evaluated %s at %s: %s%s", kind, r.Expr.Src, on, p, msg, hint)}
}
