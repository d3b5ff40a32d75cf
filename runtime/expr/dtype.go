package expr

import "fmt"

// DtypeFacts are what rules may ask of a dtype.
type DtypeFacts struct {
	WeightBytes, ActBytes int
	Scaled                bool
	// WeightBlock and ActBlock are the elements per block of block formats
	// (WeightBytes and ActBytes are then bytes per block); 0 means 1.
	WeightBlock, ActBlock int
}

// DtypeFuncNames are the rule functions DtypeFuncs defines.
var DtypeFuncNames = []string{"bytes", "act_bytes", "scaled", "block", "act_block"}

// DtypeFuncSet is DtypeFuncNames as a set (a Decl's Funcs).
func DtypeFuncSet() map[string]bool {
	m := map[string]bool{}
	for _, f := range DtypeFuncNames {
		m[f] = true
	}
	return m
}

// DtypeFuncs returns the rule functions bytes(dtype), act_bytes(dtype),
// scaled(dtype), block(dtype) and act_block(dtype) over a lookup, so the generator (on spec dtypes) and the
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
		"block":     fact(func(d DtypeFacts) int64 { return int64(max(1, d.WeightBlock)) }),
		"act_block": fact(func(d DtypeFacts) int64 { return int64(max(1, d.ActBlock)) }),
	}
}
