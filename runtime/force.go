package runtime

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/kgen-dev/kgen/generated"
	"github.com/kgen-dev/kgen/runtime/table"
)

// ForceEnv names the override variable: KGEN_FORCE="gemv:pack=4,rows=1"
// narrows a family's candidates to variants with those parameters, and
// KGEN_FORCE=gemv_bf16_p8_r1_t1_wg256 (a variant's full name) to that one
// variant, for A/B experiments. Selection rules still apply to what remains.
const ForceEnv = "KGEN_FORCE"

// Override is a parsed KGEN_FORCE value.
type Override struct {
	Family string
	Params [][2]string // name, value, in the order given
	Raw    string
	// Name is set when the value is a variant's full name; Params then
	// hold every parameter of that variant.
	Name string
}

func (o *Override) String() string { return o.Raw }

// Force parses KGEN_FORCE; nil when unset. A malformed value is reported
// by Validate when the override is used.
func Force() *Override {
	raw := os.Getenv(ForceEnv)
	if raw == "" {
		return nil
	}
	return ParseOverride(raw)
}

// ForceError validates KGEN_FORCE against the whole table: nil when unset
// or valid. Select only checks an override of the op's family, so a typo in
// the family name would otherwise be ignored and an A/B run would compare a
// configuration with itself; callers that take KGEN_FORCE from a user (gen
// explain) call this first.
func ForceError() error {
	if o := Force(); o != nil {
		return o.Validate()
	}
	return nil
}

// ParseOverride parses "family:name=value,name=value", or a variant's full
// name (a value without ':').
func ParseOverride(raw string) *Override {
	o := &Override{Raw: raw}
	if !strings.Contains(raw, ":") {
		if v := variantNamed(strings.TrimSpace(raw)); v != nil {
			// A name stands for all of its parameters: the same name on
			// every arch is the same parameters, so Matches needs no
			// special case and Select narrows to it on any device.
			o.Family, o.Name = v.Family, v.Name
			pm := v.ParamMap()
			for _, k := range keys(pm) {
				o.Params = append(o.Params, [2]string{k, pm[k]})
			}
			return o
		}
	}
	fam, rest, _ := strings.Cut(raw, ":")
	o.Family = strings.TrimSpace(fam)
	for _, kv := range strings.Split(rest, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		o.Params = append(o.Params, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	return o
}

// Validate checks every name and value exists in the table for the family;
// the error names the allowed ones.
func (o *Override) Validate() error {
	allowed := map[string]map[string]bool{}
	for i := range generated.Variants {
		v := &generated.Variants[i]
		if v.Family != o.Family {
			continue
		}
		for k, val := range v.ParamMap() {
			if allowed[k] == nil {
				allowed[k] = map[string]bool{}
			}
			allowed[k][val] = true
		}
	}
	if len(allowed) == 0 {
		var fams []string
		for _, f := range generated.Families {
			fams = append(fams, f.Name)
		}
		if !strings.Contains(o.Raw, ":") {
			return fmt.Errorf("%w=%q: no variant has this name (gen list shows them); want a variant name or FAMILY:name=value,... with FAMILY one of %s", ErrForce, o.Raw, strings.Join(fams, ", "))
		}
		return fmt.Errorf("%w=%q: unknown family %q; want FAMILY:name=value,... with FAMILY one of %s", ErrForce, o.Raw, o.Family, strings.Join(fams, ", "))
	}
	if len(o.Params) == 0 {
		return fmt.Errorf("%w=%q: no parameters; want %s:name=value,...", ErrForce, o.Raw, o.Family)
	}
	for _, p := range o.Params {
		vals, ok := allowed[p[0]]
		if !ok {
			return fmt.Errorf("%w=%q: %s has no parameter %q; allowed: %s", ErrForce, o.Raw, o.Family, p[0], strings.Join(keys(allowed), ", "))
		}
		if !vals[p[1]] {
			return fmt.Errorf("%w=%q: no %s variant has %s=%s; allowed values: %s", ErrForce, o.Raw, o.Family, p[0], p[1], strings.Join(keys(vals), ", "))
		}
	}
	return nil
}

// Matches reports whether v has every forced parameter.
func (o *Override) Matches(v *table.Variant) bool {
	for _, p := range o.Params {
		if v.Param(p[0]) != p[1] {
			return false
		}
	}
	return true
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// variantNamed returns the first variant of the table named name, or nil.
func variantNamed(name string) *table.Variant {
	for i := range generated.Variants {
		if generated.Variants[i].Name == name {
			return &generated.Variants[i]
		}
	}
	return nil
}
