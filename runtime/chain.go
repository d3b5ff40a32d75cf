package runtime

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kgen-dev/kgen/generated"
	"github.com/kgen-dev/kgen/runtime/expr"
	"github.com/kgen-dev/kgen/runtime/table"
)

// Chain is the launches of one op whose inputs other families' launches
// produce (fed_by in templates/kernels.yaml: the mmvq family's Q8_1
// activations are quant_q8_1's output), in launch order: one step per
// producer, then the consumer's. A producer's out buffer IS the consumer's
// buffer it feeds: one allocation, bound to both launches, the producer's
// launch first (on Vulkan, with a compute-to-compute barrier between them).
type Chain struct {
	Op    Op     // the consumer's op
	Act   string // the dtype of the values the producers take
	Steps []ChainStep
}

// ChainStep is one launch of a chain.
type ChainStep struct {
	Op     Op
	Choice *Choice
	Launch *Launch
	// Feeds names the consumer's buffer this step's out buffer is; "" for
	// the consumer (the last step).
	Feeds string
}

// Consumer is the chain's last step: the op the caller asked for.
func (c *Chain) Consumer() *ChainStep { return &c.Steps[len(c.Steps)-1] }

// Picker picks the variant for one op of a chain. Select is one (tuning
// cache and KGEN_FORCE honoured); the bench keeps the variant it measured.
type Picker func(dev Device, op Op) (*Choice, error)

// SelectChain picks and plans the launches of op on dev when op's family
// has fed_by buffers: for each, the producer's variant for its op
// (ProducerOp: act, the dtype of the values it converts, and its shape from
// op), then op's variant, both through Select, and plans them so that the
// producer's output buffer is the consumer's input: the producer's out
// buffer must be exactly as large as the buffer it feeds and hold the same
// elements, or the chain is refused (*RefusedError). A family without
// fed_by, or an act its producers have no variants of, is an
// *InvalidOpError; an op outside a family's rules is Select's
// *NotEligibleError or *NoVariantError (wrapped, naming the step). The
// activations are taken as bound at offset 0 (the producers' ops have
// Align 0).
func SelectChain(dev Device, op Op, act string) (*Chain, error) {
	return PlanChain(dev, op, act, Select)
}

// PlanChain is SelectChain with the variants picked by pick.
func PlanChain(dev Device, op Op, act string, pick Picker) (*Chain, error) {
	if err := op.Validate(); err != nil {
		return nil, err
	}
	fam, err := familyRules(op.Family)
	if err != nil {
		return nil, err
	}
	if len(fam.FedBy) == 0 {
		return nil, &InvalidOpError{Op: op, Field: "family", Reason: fmt.Sprintf("%s has no fed_by in templates/kernels.yaml: no other family produces its inputs (use Select)", op.Family)}
	}
	var pops []Op
	for _, fd := range fam.FedBy {
		pop, err := ProducerOp(fd, dev, op, act)
		if err != nil {
			return nil, err
		}
		pops = append(pops, pop)
	}
	// The consumer first: when it cannot serve op, that is the answer.
	cch, err := pick(dev, op)
	if err != nil {
		return nil, err
	}
	cl, err := Plan(cch.Variant, dev, op)
	if err != nil {
		return nil, err
	}
	c := &Chain{Op: op, Act: act}
	for i, fd := range fam.FedBy {
		pop := pops[i]
		pch, err := pick(dev, pop)
		if err != nil {
			return nil, fmt.Errorf("%s's producer of %s: %w", op.Family, fd.Buffer, err)
		}
		pl, err := Plan(pch.Variant, dev, pop)
		if err != nil {
			return nil, fmt.Errorf("%s's producer of %s: %w", op.Family, fd.Buffer, err)
		}
		if err := checkFeed(fd, pl, cl); err != nil {
			return nil, err
		}
		c.Steps = append(c.Steps, ChainStep{Op: pop, Choice: pch, Launch: pl, Feeds: fd.Buffer})
	}
	c.Steps = append(c.Steps, ChainStep{Op: op, Choice: cch, Launch: cl})
	return c, nil
}

// checkFeed refuses a producer launch whose out buffer is not the consumer
// launch's buffer fd.Buffer: other elements, or another size.
func checkFeed(fd table.Feed, pl, cl *Launch) error {
	refuse := func(f string, a ...any) error {
		return &RefusedError{Variant: cl.Variant.Name, Reason: fmt.Sprintf("fed_by %s: ", fd.Buffer) + fmt.Sprintf(f, a...)}
	}
	in, out := cl.Buffer(fd.Buffer), pl.Output()
	if in == nil || in.Dir != "in" {
		return refuse("the launch has no in buffer %s", fd.Buffer)
	}
	if out == nil {
		return refuse("producer %s has no out buffer", pl.Variant.Name)
	}
	ie, oe := elemOf(in.Elem, cl.Op.Dtype), elemOf(out.Elem, pl.Op.Dtype)
	if ie != oe {
		return refuse("%s holds %s; producer %s writes %s into %s", in.Name, ie, pl.Variant.Name, oe, out.Name)
	}
	if in.Size != out.Size {
		return refuse("%s is %d bytes for %s; producer %s writes %d bytes of %s for %s: the producer's output must be exactly the buffer",
			in.Name, in.Size, cl.Op, pl.Variant.Name, out.Size, out.Name, pl.Op)
	}
	return nil
}

// elemOf resolves a contract buffer's elem for a dtype: weight and act are
// the dtype's element types (or block formats); anything else is itself.
func elemOf(elem, dtype string) string {
	d := dtypeOf(dtype)
	switch {
	case d == nil:
		return elem
	case elem == "act":
		return d.Act
	case elem == "weight":
		return d.Weight
	}
	return elem
}

var (
	feedExprMu sync.Mutex
	feedExprs  = map[string]*expr.Expr{}
)

// feedExpr parses (once) a feed's shape expression.
func feedExpr(src string) (*expr.Expr, error) {
	feedExprMu.Lock()
	defer feedExprMu.Unlock()
	if e, ok := feedExprs[src]; ok {
		return e, nil
	}
	e, err := expr.ParseTrusted(src)
	if err != nil {
		return nil, err
	}
	feedExprs[src] = e
	return e, nil
}

// ProducerOp is the op of fd's producer for the consumer's op: its family,
// act as its dtype, its m, n and k from fd's expressions over op's m, n, k.
// An act the producer family has no variants of is an *InvalidOpError
// naming the ones it has.
func ProducerOp(fd table.Feed, dev Device, op Op, act string) (Op, error) {
	dts := FamilyDtypes(fd.Family)
	if !contains(dts, act) {
		what := fmt.Sprintf("%q", act)
		if act == "" {
			what = "not given"
		}
		return Op{}, &InvalidOpError{Op: op, Field: "act", Reason: fmt.Sprintf("%s: the dtype of the values %s converts into %s's %s; allowed: %s",
			what, fd.Family, op.Family, fd.Buffer, strings.Join(dts, ", "))}
	}
	pop := Op{Family: fd.Family, Dtype: act}
	env := newEnv(op, dev, nil)
	for _, x := range []struct {
		name, src string
		dst       *int
	}{{"m", fd.M, &pop.M}, {"n", fd.N, &pop.N}, {"k", fd.K, &pop.K}} {
		e, err := feedExpr(x.src)
		if err != nil {
			return Op{}, fmt.Errorf("%s fed_by %s: %s: %w", op.Family, fd.Buffer, x.name, err)
		}
		v, err := evalInt(e, env)
		if err != nil {
			return Op{}, fmt.Errorf("%s fed_by %s: %s: %w", op.Family, fd.Buffer, x.name, err)
		}
		if v < 1 || v > 1<<31-1 {
			return Op{}, &InvalidOpError{Op: op, Field: x.name, Reason: fmt.Sprintf("makes the producer's %s = %s equal %d; want 1..2^31-1", x.name, x.src, v)}
		}
		*x.dst = int(v)
	}
	return pop, nil
}

// FeedsOf lists the buffers of family's launch that other families
// produce (fed_by), in buffer order; nil for an unknown family or one
// without.
func FeedsOf(family string) []table.Feed {
	fam, err := familyRules(family)
	if err != nil {
		return nil
	}
	return fam.FedBy
}

var (
	famDtypesOnce sync.Once
	famDtypes     map[string][]string
)

// FamilyDtypes lists the dtypes a family has variants of, sorted.
func FamilyDtypes(family string) []string {
	famDtypesOnce.Do(func() {
		famDtypes = map[string][]string{}
		seen := map[[2]string]bool{}
		for i := range generated.Variants {
			v := &generated.Variants[i]
			k := [2]string{v.Family, v.Param("dtype")}
			if !seen[k] {
				seen[k] = true
				famDtypes[k[0]] = append(famDtypes[k[0]], k[1])
			}
		}
		for _, ds := range famDtypes {
			sort.Strings(ds)
		}
	})
	return famDtypes[family]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
