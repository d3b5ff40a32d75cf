package expr

import (
	"fmt"
	"go/ast"
	"go/token"
)

// Prog is an expression specialized to one environment: every name except
// the free ones is looked up once and every subtree without a free name is
// evaluated once (its value, or its error, kept for when it is reached); the
// free names are read from a slice at each evaluation. Prog.Eval(vals)
// returns exactly what Expr.Eval returns with the free names bound to vals
// and the rest to the environment's values: the same value, the same error
// (an error of a folded subtree surfaces only when evaluation reaches it, so
// short-circuits guard it as they do in Eval). benchreport's fitter
// re-evaluates a model key for each trial set of model constants this way.
type Prog struct {
	src  string
	root pnode
	// line, when set, is root over int64s as straight-line code with
	// common subexpressions computed once (the model keys repeat their
	// occupancy terms). It evaluates every operand, && and || included:
	// where nothing fails that is root's value (the operators have no side
	// effects); where a step fails (a division by zero a short-circuit
	// would have skipped, or one root fails too), Eval runs root instead,
	// so the result is root's either way. Unset for trees it cannot hold
	// (a string, a function call, an error constant, over maxLine steps).
	line []instr
	out  int32 // line's result register
}

type pnode interface {
	eval(free []int64) (Value, error)
}

// Specialize binds every name of the expression but free to env's values
// (and calls env's functions on arguments without free names now). The
// environment must not change afterwards: its values are folded in.
func (e *Expr) Specialize(env Env, free []string) *Prog {
	idx := map[string]int{}
	for i, f := range free {
		idx[f] = i
	}
	root := e.spec(e.root, env, idx)
	p := &Prog{src: e.Src, root: root}
	var b lineBuilder
	if out, ok := b.add(root); ok && len(b.code) <= maxLine {
		p.line, p.out = b.code, out
	}
	return p
}

// Eval evaluates the program with the free names bound to vals (in the
// order given to Specialize).
func (p *Prog) Eval(vals []int64) (Value, error) {
	if p.line != nil {
		if v, ok := runLine(p.line, p.out, vals); ok {
			return Int(v), nil
		}
	}
	v, err := p.root.eval(vals)
	if err != nil {
		return Value{}, fmt.Errorf("%s: %w", p.src, err)
	}
	return v, nil
}

// hasFree reports whether a subtree names a free name (call names are
// functions, never names).
func hasFree(n ast.Expr, idx map[string]int) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if found {
			return false
		}
		switch m := m.(type) {
		case *ast.CallExpr:
			for _, a := range m.Args {
				found = found || hasFree(a, idx)
			}
			return false
		case *ast.Ident:
			_, found = idx[m.Name]
		}
		return !found
	})
	return found
}

func (e *Expr) spec(n ast.Expr, env Env, idx map[string]int) pnode {
	if !hasFree(n, idx) {
		v, err := e.eval(n, env)
		return &pconst{v, err}
	}
	switch n := n.(type) {
	case *ast.Ident:
		return pfree(idx[n.Name])
	case *ast.ParenExpr:
		return e.spec(n.X, env, idx)
	case *ast.UnaryExpr:
		return &punary{op: n.Op, x: e.spec(n.X, env, idx)}
	case *ast.CallExpr:
		name := n.Fun.(*ast.Ident).Name
		a := e.spec(n.Args[0], env, idx)
		if f := builtins[name]; f != nil {
			return &pbuiltin{name: name, f: f, a: a, b: e.spec(n.Args[1], env, idx)}
		}
		return &pcall{env: env, name: name, a: a}
	case *ast.BinaryExpr:
		return &pbinary{op: n.Op, x: e.spec(n.X, env, idx), y: e.spec(n.Y, env, idx)}
	}
	return &pconst{err: fmt.Errorf("cannot evaluate %T", n)}
}

type pconst struct {
	v   Value
	err error
}

func (c *pconst) eval([]int64) (Value, error) { return c.v, c.err }

type pfree int

func (f pfree) eval(vals []int64) (Value, error) { return Int(vals[f]), nil }

type punary struct {
	op token.Token
	x  pnode
}

func (u *punary) eval(vals []int64) (Value, error) {
	x, err := u.x.eval(vals)
	if err != nil {
		return x, err
	}
	if x.IsStr {
		return Value{}, fmt.Errorf("operator %s on a string", u.op)
	}
	if u.op == token.NOT {
		return b2i(x.Int == 0), nil
	}
	return Int(-x.Int), nil
}

type pbuiltin struct {
	name string
	f    func(a, b int64) (Value, error)
	a, b pnode
}

func (c *pbuiltin) eval(vals []int64) (Value, error) {
	a, err := c.a.eval(vals)
	if err != nil {
		return a, err
	}
	b, err := c.b.eval(vals)
	if err != nil {
		return b, err
	}
	if a.IsStr || b.IsStr {
		return Value{}, fmt.Errorf("%s of a string", c.name)
	}
	return c.f(a.Int, b.Int)
}

type pcall struct {
	env  Env
	name string
	a    pnode
}

func (c *pcall) eval(vals []int64) (Value, error) {
	a, err := c.a.eval(vals)
	if err != nil {
		return a, err
	}
	return c.env.Call(c.name, a)
}

type pbinary struct {
	op   token.Token
	x, y pnode
}

func (p *pbinary) eval(vals []int64) (Value, error) {
	x, err := p.x.eval(vals)
	if err != nil {
		return x, err
	}
	if p.op == token.LAND && !x.IsStr && x.Int == 0 {
		return Int(0), nil
	}
	if p.op == token.LOR && !x.IsStr && x.Int != 0 {
		return Int(1), nil
	}
	y, err := p.y.eval(vals)
	if err != nil {
		return y, err
	}
	return binary(p.op, x, y)
}

// binary applies a binary operator to evaluated operands (both evaluators'
// last step).
func binary(op token.Token, x, y Value) (Value, error) {
	if x.IsStr || y.IsStr {
		if !(x.IsStr && y.IsStr) {
			return Value{}, fmt.Errorf("%s compares a string with a number", op)
		}
		switch op {
		case token.EQL:
			return b2i(x.Str == y.Str), nil
		case token.NEQ:
			return b2i(x.Str != y.Str), nil
		}
		return Value{}, fmt.Errorf("operator %s on strings (only == and !=)", op)
	}
	a, b := x.Int, y.Int
	switch op {
	case token.ADD:
		return Int(a + b), nil
	case token.SUB:
		return Int(a - b), nil
	case token.MUL:
		return Int(a * b), nil
	case token.QUO, token.REM:
		if b == 0 {
			return Value{}, fmt.Errorf("division by zero")
		}
		if op == token.QUO {
			return Int(a / b), nil
		}
		return Int(a % b), nil
	case token.EQL:
		return b2i(a == b), nil
	case token.NEQ:
		return b2i(a != b), nil
	case token.LSS:
		return b2i(a < b), nil
	case token.LEQ:
		return b2i(a <= b), nil
	case token.GTR:
		return b2i(a > b), nil
	case token.GEQ:
		return b2i(a >= b), nil
	case token.LAND:
		return b2i(b != 0), nil
	case token.LOR:
		return b2i(b != 0), nil
	}
	return Value{}, fmt.Errorf("cannot evaluate %T", &ast.BinaryExpr{})
}

// maxLine bounds a straight-line program (its registers live on the stack).
const maxLine = 1024

const (
	opConst uint8 = iota
	opFree
	opNot
	opNeg
	opMin
	opMax
	opCdiv
	opAdd
	opSub
	opMul
	opQuo
	opRem
	opEql
	opNeq
	opLss
	opLeq
	opGtr
	opGeq
	opLand
	opLor
)

// instr is one step: its result is the register of its index; a and b
// are earlier steps (opFree: a is the free name's index), c opConst's
// value.
type instr struct {
	op   uint8
	a, b int32
	c    int64
}

type lineBuilder struct {
	code []instr
	seen map[instr]int32
}

func (b *lineBuilder) emit(in instr) int32 {
	if b.seen == nil {
		b.seen = map[instr]int32{}
	}
	if r, ok := b.seen[in]; ok {
		return r
	}
	b.code = append(b.code, in)
	r := int32(len(b.code) - 1)
	b.seen[in] = r
	return r
}

var lineOps = map[token.Token]uint8{
	token.ADD: opAdd, token.SUB: opSub, token.MUL: opMul, token.QUO: opQuo, token.REM: opRem,
	token.EQL: opEql, token.NEQ: opNeq, token.LSS: opLss, token.LEQ: opLeq, token.GTR: opGtr, token.GEQ: opGeq,
	token.LAND: opLand, token.LOR: opLor,
}

// add emits n's steps; false when n has something straight-line code
// cannot hold (a call, a string or an error constant).
func (b *lineBuilder) add(n pnode) (int32, bool) {
	switch n := n.(type) {
	case *pconst:
		if n.err != nil || n.v.IsStr {
			return 0, false
		}
		return b.emit(instr{op: opConst, c: n.v.Int}), true
	case pfree:
		return b.emit(instr{op: opFree, a: int32(n)}), true
	case *punary:
		x, ok := b.add(n.x)
		op := opNeg
		if n.op == token.NOT {
			op = opNot
		}
		return b.emit(instr{op: op, a: x}), ok
	case *pbuiltin:
		x, ok1 := b.add(n.a)
		y, ok2 := b.add(n.b)
		op, ok := map[string]uint8{"min": opMin, "max": opMax, "cdiv": opCdiv}[n.name]
		return b.emit(instr{op: op, a: x, b: y}), ok && ok1 && ok2
	case *pbinary:
		op, ok := lineOps[n.op]
		if !ok {
			return 0, false
		}
		x, ok1 := b.add(n.x)
		y, ok2 := b.add(n.y)
		return b.emit(instr{op: op, a: x, b: y}), ok1 && ok2
	}
	return 0, false
}

// runLine runs a straight-line program; false when a step fails (division
// by zero, cdiv by a non-positive divisor).
func runLine(code []instr, out int32, vals []int64) (int64, bool) {
	var buf [maxLine]int64
	r := buf[:len(code)]
	for i, in := range code {
		var v int64
		switch in.op {
		case opConst:
			v = in.c
		case opFree:
			v = vals[in.a]
		case opNot:
			v = b2int(r[in.a] == 0)
		case opNeg:
			v = -r[in.a]
		case opMin:
			v = min(r[in.a], r[in.b])
		case opMax:
			v = max(r[in.a], r[in.b])
		case opCdiv:
			x, y := r[in.a], r[in.b]
			if y <= 0 {
				return 0, false
			}
			if x <= 0 {
				v = x / y
			} else {
				v = (x-1)/y + 1
			}
		case opAdd:
			v = r[in.a] + r[in.b]
		case opSub:
			v = r[in.a] - r[in.b]
		case opMul:
			v = r[in.a] * r[in.b]
		case opQuo:
			if r[in.b] == 0 {
				return 0, false
			}
			v = r[in.a] / r[in.b]
		case opRem:
			if r[in.b] == 0 {
				return 0, false
			}
			v = r[in.a] % r[in.b]
		case opEql:
			v = b2int(r[in.a] == r[in.b])
		case opNeq:
			v = b2int(r[in.a] != r[in.b])
		case opLss:
			v = b2int(r[in.a] < r[in.b])
		case opLeq:
			v = b2int(r[in.a] <= r[in.b])
		case opGtr:
			v = b2int(r[in.a] > r[in.b])
		case opGeq:
			v = b2int(r[in.a] >= r[in.b])
		case opLand:
			v = b2int(r[in.a] != 0 && r[in.b] != 0)
		case opLor:
			v = b2int(r[in.a] != 0 || r[in.b] != 0)
		}
		r[i] = v
	}
	return r[out], true
}

func b2int(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
