package expr

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestSpecializeAgrees checks Prog.Eval against Expr.Eval, value and error
// text, on random expressions over free and bound names, with bindings that
// hit division by zero, cdiv's refusals, strings in arithmetic and calls
// that fail, so folded errors must surface exactly where Eval's do.
func TestSpecializeAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	leaves := []string{"m", "n", "k", "pack", "layout", "dtype", "0", "1", "2", "7", "-3", `"subgroup"`, `"bf16"`}
	ops := []string{"+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||"}
	var gen func(depth int) string
	gen = func(depth int) string {
		if depth == 0 || rng.Intn(4) == 0 {
			return leaves[rng.Intn(len(leaves))]
		}
		switch rng.Intn(6) {
		case 0:
			return "!" + gen(depth-1)
		case 1:
			return "-(" + gen(depth-1) + ")"
		case 2:
			fn := []string{"min", "max", "cdiv"}[rng.Intn(3)]
			return fn + "(" + gen(depth-1) + ", " + gen(depth-1) + ")"
		case 3:
			return "bytes(" + gen(depth-1) + ")"
		}
		return "(" + gen(depth-1) + " " + ops[rng.Intn(len(ops))] + " " + gen(depth-1) + ")"
	}
	frees := [][]string{nil, {"m"}, {"n", "k"}, {"k", "pack", "m"}, {"m", "n", "k", "pack"}}
	checked, agreedErr, lines := 0, 0, 0
	for i := 0; i < 20000; i++ {
		e, err := ParseTrusted(gen(5))
		if err != nil {
			continue // e.g. a string literal where Go's parser refuses nothing; skip odd ones
		}
		bound := map[string]Value{"m": Int(int64(rng.Intn(5) - 1)), "n": Int(int64(rng.Intn(9) - 2)), "k": Int(int64(rng.Intn(3))), "pack": Int(int64(rng.Intn(4))),
			"layout": Str([]string{"subgroup", "mma"}[rng.Intn(2)]), "dtype": Str([]string{"bf16", "f32", "f64"}[rng.Intn(3)])}
		free := frees[rng.Intn(len(frees))]
		p := e.Specialize(env(bound), free)
		if p.line != nil {
			lines++
		}
		for j := 0; j < 4; j++ {
			vals := make([]int64, len(free))
			all := map[string]Value{}
			for k, v := range bound {
				all[k] = v
			}
			for k, f := range free {
				vals[k] = int64(rng.Intn(7) - 2)
				all[f] = Int(vals[k])
			}
			want, werr := e.Eval(env(all))
			got, gerr := p.Eval(vals)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || want != got {
				t.Fatalf("%s with %v, free %v = %v: Eval %v (%v), Specialize %v (%v)", e.Src, bound, free, vals, want, werr, got, gerr)
			}
			checked++
			if werr != nil {
				agreedErr++
			}
		}
	}
	if checked < 40000 || agreedErr < 1000 || lines < 1000 {
		t.Errorf("checked %d evaluations, %d errors, %d straight-line programs: too few to mean anything", checked, agreedErr, lines)
	}
}
