package expr

import "fmt"

// DtypeFacts are what rules may ask of a dtype.
type DtypeFacts struct {
	WeightBytes, ActBytes int
	Scaled                bool
}

// DtypeFuncs returns the rule functions bytes(dtype), act_bytes(dtype) and
// scaled(dtype) over a lookup, so the generator (on spec dtypes) and the
// runtime (on the table's) evaluate them the same way.
func DtypeFuncs(lookup func(name string) (DtypeFacts, bool)) map[string]func(Value) (Value, error) {
	fact := func(pick func(DtypeFacts) int64) func(Value) (Value, error) {
		return func(v Value) (Value, error) {
			d, ok := lookup(v.Str)
			if !v.IsStr || !ok {
				return Value{}, fmt.Errorf("%s is not a dtype", v)
			}
			return Int(pick(d)), nil
		}
	}
	return map[string]func(Value) (Value, error){
		"bytes":     fact(func(d DtypeFacts) int64 { return int64(d.WeightBytes) }),
		"act_bytes": fact(func(d DtypeFacts) int64 { return int64(d.ActBytes) }),
		"scaled": fact(func(d DtypeFacts) int64 {
			if d.Scaled {
				return 1
			}
			return 0
		}),
	}
}
