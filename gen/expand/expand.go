// Package expand turns a validated spec into the list of variants to emit:
// for each family and arch, the product of the axis values the arch emits,
// filtered by the family's constraints and the arch's dtypes.
package expand

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kgen-dev/kgen/gen/spec"
	"github.com/kgen-dev/kgen/runtime/expr"
)

// Variant is one kernel: family + backend + arch + an assignment of axis
// values. Its Name is built from the axes in spec order and is its kernel
// symbol, file name stem and table key within its arch.
type Variant struct {
	Name   string
	Family *spec.Family
	Arch   *spec.Arch
	// Params holds every axis value and derived parameter, as text.
	Params map[string]string
	// Blob is the SPIR-V blob stem (Vulkan only): the family and the baked
	// parameters. Variants sharing a blob differ only in specialization.
	Blob string
	// Spec is the Vulkan specialization constants, in id order.
	Spec []SpecValue
}

// SpecValue is a specialization constant bound to a value.
type SpecValue struct {
	ID    uint32
	Param string
	Value uint32
}

// Key is the variant's unique key in the table: backend/arch/name.
func (v *Variant) Key() string { return v.Arch.Backend + "/" + v.Arch.Name + "/" + v.Name }

// Int returns an integer parameter.
func (v *Variant) Int(name string) int {
	i, _ := strconv.Atoi(v.Params[name])
	return i
}

// Env returns the variant's parameters, the arch's facts and the dtype
// functions as an expression environment.
func Env(s *spec.Spec, a *spec.Arch, params map[string]string) expr.MapEnv {
	vars := map[string]expr.Value{}
	for k, v := range params {
		if i, err := strconv.ParseInt(v, 10, 64); err == nil {
			vars[k] = expr.Int(i)
		} else {
			vars[k] = expr.Str(v)
		}
	}
	vars["wave"] = expr.Int(int64(a.Wave))
	vars["compute_units"] = expr.Int(int64(a.ComputeUnits))
	vars["shared_memory"] = expr.Int(int64(a.SharedMemory))
	vars["target"] = expr.Str(a.Target)
	vars["int_dot"] = expr.Str(a.IntDot)
	vars["coopmat"] = expr.Str(a.Coopmat)
	return expr.MapEnv{Vars: vars, Funcs: DtypeFuncs(s)}
}

// DtypeFuncs are the functions rules may call on a dtype name.
func DtypeFuncs(s *spec.Spec) map[string]func(expr.Value) (expr.Value, error) {
	return expr.DtypeFuncs(func(name string) (expr.DtypeFacts, bool) {
		d := s.Dtypes[name]
		if d == nil {
			return expr.DtypeFacts{}, false
		}
		return expr.DtypeFacts{WeightBytes: d.WeightBytes, ActBytes: d.ActBytes, Scaled: d.Scaled, WeightBlock: d.WeightBlock, ActBlock: d.ActBlock}, true
	})
}

// Error is an expansion error (e.g. a family with no variants on an arch).
type Error struct {
	Pos spec.Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Expand lists every variant, sorted by key.
func Expand(s *spec.Spec) ([]*Variant, error) {
	var out []*Variant
	for _, f := range s.Families {
		for _, a := range s.Archs {
			if f.Templates[a.Backend] == "" {
				continue
			}
			vs, err := expandOne(s, f, a)
			if err != nil {
				return nil, err
			}
			out = append(out, vs...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	for i := 1; i < len(out); i++ {
		if out[i].Key() == out[i-1].Key() {
			return nil, &Error{out[i].Family.Pos, fmt.Sprintf("two variants are both named %s on %s: make the axis prefixes tell them apart", out[i].Name, out[i].Arch.Name)}
		}
	}
	return out, nil
}

func expandOne(s *spec.Spec, f *spec.Family, a *spec.Arch) ([]*Variant, error) {
	// The values this arch emits for each axis, in spec order.
	choices := make([][]string, len(f.Axes))
	for i, ax := range f.Axes {
		vals := ax.Values
		if sub, ok := a.Emit[f.Name][ax.Name]; ok {
			vals = sub
		}
		if ax.Name == "dtype" {
			var keep []string
			for _, v := range vals {
				if contains(a.Dtypes, v) {
					keep = append(keep, v)
				}
			}
			vals = keep
		}
		choices[i] = vals
		// An arch listing none of the family's dtypes (and no emit entry
		// for it) has no variants of the family: e.g. a dense-only arch and
		// the block-format GEMV.
		if ax.Name == "dtype" && len(vals) == 0 && a.Emit[f.Name] == nil {
			return nil, nil
		}
	}
	var out []*Variant
	idx := make([]int, len(f.Axes))
	// Per dtype, the variants emitted; per constraint, the combinations it
	// rejected (to name it when nothing is left).
	perDtype := map[string]int{}
	rejected := make([]int, len(f.Constraints))
	combos := 0
	dtypeRejected, dtypeCombos := map[string][]int{}, map[string]int{}
	for {
		done := false
		for i := range choices {
			if len(choices[i]) == 0 {
				done = true
			}
		}
		if done {
			break
		}
		params := map[string]string{}
		var parts []string
		for i, ax := range f.Axes {
			v := choices[i][idx[i]]
			params[ax.Name] = v
			if ax.Name == "dtype" {
				parts = append(parts, v)
			} else if ax.Unnamed == "" || v != ax.Unnamed {
				parts = append(parts, ax.Prefix+v)
			}
			for k, dv := range ax.Derive[v] {
				params[k] = dv
			}
		}
		combos++
		dt := params["dtype"]
		dtypeCombos[dt]++
		failed, err := allow(s, f, a, params)
		if err != nil {
			return nil, err
		}
		if failed >= 0 {
			rejected[failed]++
			if dtypeRejected[dt] == nil {
				dtypeRejected[dt] = make([]int, len(f.Constraints))
			}
			dtypeRejected[dt][failed]++
		} else {
			perDtype[params["dtype"]]++
			v := &Variant{Name: f.Name + "_" + strings.Join(parts, "_"), Family: f, Arch: a, Params: params}
			if a.Backend == spec.BackendVulkan {
				bparts := []string{f.Name}
				for _, b := range f.VulkanBaked {
					if ax := f.Axis(b); ax != nil && ax.Unnamed != "" && params[b] == ax.Unnamed {
						continue
					}
					bparts = append(bparts, blobPart(f, b, params[b]))
				}
				v.Blob = strings.Join(bparts, "_")
				for _, sc := range f.VulkanSpecialization {
					n, _ := strconv.ParseUint(params[sc.Param], 10, 32)
					v.Spec = append(v.Spec, SpecValue{ID: sc.ID, Param: sc.Param, Value: uint32(n)})
				}
				sort.Slice(v.Spec, func(i, j int) bool { return v.Spec[i].ID < v.Spec[j].ID })
			}
			out = append(out, v)
		}
		// next index (odometer, last axis fastest)
		i := len(idx) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(choices[i]) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			break
		}
	}
	if err := tooMany(f, a, choices, len(out), combos); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, &Error{a.Pos, fmt.Sprintf("family %s has no variants on %s after its constraints and this arch's emit lists%s: widen emit.%s or the arch's dtypes", f.Name, a.Name, mostRejected(f, rejected, combos), f.Name)}
	}
	// A dtype the arch asks for but cannot have (e.g. only pack values too
	// wide for it) is a mistake in the emit lists, not a silent gap in the
	// table that selection would report at run time.
	for i, ax := range f.Axes {
		if ax.Name != "dtype" {
			continue
		}
		for _, d := range choices[i] {
			if perDtype[d] == 0 {
				return nil, &Error{a.Pos, fmt.Sprintf("family %s has no variants for dtype %s on %s after its constraints and this arch's emit lists%s: widen emit.%s or drop %s from emit.%s.dtype", f.Name, d, a.Name, mostRejected(f, dtypeRejected[d], dtypeCombos[d]), f.Name, d, f.Name)}
			}
		}
	}
	return out, nil
}

// tooMany refuses a family expanding to more than its max_variants on one
// arch, naming the axes that multiply: a tenfold axis is a tenfold
// generated/, table and --check, which deserves a decision in the spec.
func tooMany(f *spec.Family, a *spec.Arch, choices [][]string, n, combos int) error {
	if n <= f.MaxVariants {
		return nil
	}
	var axes []string
	for i, ax := range f.Axes {
		axes = append(axes, fmt.Sprintf("%s %d", ax.Name, len(choices[i])))
	}
	msg := fmt.Sprintf("family %s expands to %d variants on %s, more than its limit of %d: its axes multiply %s = %d combinations (after this arch's emit lists and dtypes), %d after the constraints; narrow an axis or emit.%s in %s",
		f.Name, n, a.Name, f.MaxVariants, strings.Join(axes, " x "), combos, n, f.Name, a.File)
	if f.MaxVariantsPos.Line == 0 {
		return &Error{f.Pos, msg + fmt.Sprintf(", or set max_variants: N on the family to allow more (default %d)", spec.DefaultMaxVariants)}
	}
	return &Error{f.MaxVariantsPos, msg + ", or raise max_variants"}
}

// mostRejected names the constraint that rejected the most combinations.
func mostRejected(f *spec.Family, rejected []int, combos int) string {
	best := -1
	for i, n := range rejected {
		if n > 0 && (best < 0 || n > rejected[best]) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	c := f.Constraints[best]
	return fmt.Sprintf(" (the constraint %s at %s rejected %d of %d combinations: %s)", c.Expr.Src, c.Pos, rejected[best], combos, c.Why)
}

// blobPart names a baked parameter in a blob stem, with its axis prefix.
func blobPart(f *spec.Family, param, value string) string {
	if ax := f.Axis(param); ax != nil && ax.Name != "dtype" {
		return ax.Prefix + value
	}
	return value
}

// allow returns the index of the first constraint params fail, or -1.
func allow(s *spec.Spec, f *spec.Family, a *spec.Arch, params map[string]string) (int, error) {
	env := Env(s, a, params)
	for i, c := range f.Constraints {
		ok, err := c.Expr.Bool(env)
		if err != nil {
			return 0, &Error{c.Pos, err.Error()}
		}
		if !ok {
			return i, nil
		}
	}
	return -1, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
