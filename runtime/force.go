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
// narrows a family's candidates to variants with those parameters, for A/B
// experiments. Selection rules still apply to what remains.
const ForceEnv = "KGEN_FORCE"

// Override is a parsed KGEN_FORCE value.
type Override struct {
	Family string
	Params [][2]string // name, value, in the order given
	Raw    string
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

// ParseOverride parses "family:name=value,name=value".
func ParseOverride(raw string) *Override {
	o := &Override{Raw: raw}
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
