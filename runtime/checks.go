package runtime

import (
	"fmt"
	"math"

	"github.com/kgen-dev/kgen/runtime/expr"
	"github.com/kgen-dev/kgen/runtime/table"
)

// VerifyCases are the ops v is verified on, on dev: its family's verify
// cases (templates/kernels.yaml, verify:) evaluated for the variant and
// device, a case with m_to repeated for every m in range, and cases whose
// when fails left out.
func VerifyCases(v *table.Variant, dev Device) ([]Op, error) {
	c, err := contractOf(v.Family)
	if err != nil {
		return nil, err
	}
	env := newEnv(Op{Family: v.Family}, dev, v)
	if v.Arch == dev.Arch {
		env.native = 1
	}
	if err := evalLets(env, c.vlets); err != nil {
		return nil, fmt.Errorf("%s: verify: %w", v.Key(), err)
	}
	dtype := v.Param("dtype")
	var ops []Op
	for i := range c.caseM {
		if c.caseWhen[i] != nil {
			ok, err := c.caseWhen[i].Bool(env)
			if err != nil {
				return nil, fmt.Errorf("%s: verify case %d: %w", v.Key(), i+1, err)
			}
			if !ok {
				continue
			}
		}
		var vals [4]int64
		for j, e := range [4]func() (int64, error){
			func() (int64, error) { return evalInt(c.caseM[i], env) },
			func() (int64, error) {
				if c.caseMTo[i] == nil {
					return -1, nil
				}
				return evalInt(c.caseMTo[i], env)
			},
			func() (int64, error) { return evalInt(c.caseN[i], env) },
			func() (int64, error) { return evalInt(c.caseK[i], env) },
		} {
			if vals[j], err = e(); err != nil {
				return nil, fmt.Errorf("%s: verify case %d: %w", v.Key(), i+1, err)
			}
		}
		mTo := vals[1]
		if mTo < 0 {
			mTo = vals[0]
		}
		for m := vals[0]; m <= mTo; m++ {
			ops = append(ops, Op{Family: v.Family, Dtype: dtype, M: int(m), N: int(vals[2]), K: int(vals[3])})
		}
	}
	return ops, nil
}

func evalInt(e *expr.Expr, env *evalEnv) (int64, error) {
	v, err := e.Eval(env)
	if err != nil {
		return 0, err
	}
	if v.IsStr {
		return 0, fmt.Errorf("%s is a name, want a number", e.Src)
	}
	return v.Int, nil
}

// Bound is the verification bound of v on op for a relative comparison:
// ulps * 2^-24 * sqrt(terms + 1) (templates/kernels.yaml, verify.compare),
// and 0 for an exact one.
func Bound(v *table.Variant, op Op) (float64, error) {
	c, err := contractOf(v.Family)
	if err != nil {
		return 0, err
	}
	vf := &c.fam.Verify
	if vf.Compare != "relative" {
		return 0, nil
	}
	t, err := c.terms.Eval(newEnv(op, Device{}, v))
	if err != nil {
		return 0, err
	}
	if t.IsStr || t.Int < 0 {
		return 0, fmt.Errorf("%s: verify terms %s", v.Key(), t)
	}
	return float64(vf.Ulps) * math.Ldexp(1, -24) * math.Sqrt(float64(t.Int)+1), nil
}

// Contract is v's family's launch contract and verification section.
func Contract(family string) (*table.Family, error) {
	c, err := contractOf(family)
	if err != nil {
		return nil, err
	}
	return c.fam, nil
}
