// Package expr is the one small rule language of kgen: constraints between axis
// values in the kernel spec and eligibility rules evaluated at load time.
//
// An expression is a Go expression (parsed with go/parser) restricted to an
// allow-list: integer and string literals, names the caller declares, the
// operators + - * / % == != < <= > >= && || ! and parentheses, and the calls
// the caller declares (e.g. bytes(dtype)). The same tree is evaluated in Go
// and printed as C, so the generated C selector and the Go runtime agree.
package expr

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strconv"
	"strings"
)

// Value is an int64 or a string.
type Value struct {
	Str   string
	Int   int64
	IsStr bool
}

// Int returns an integer Value.
func Int(i int64) Value { return Value{Int: i} }

// Str returns a string Value.
func Str(s string) Value { return Value{Str: s, IsStr: true} }

func (v Value) String() string {
	if v.IsStr {
		return strconv.Quote(v.Str)
	}
	return strconv.FormatInt(v.Int, 10)
}

// Env gives the values of names and the functions an expression may call.
type Env interface {
	Lookup(name string) (Value, bool)
	Call(fn string, arg Value) (Value, error)
}

// Decl says which names and functions an expression may use.
type Decl struct {
	Names map[string]bool
	Funcs map[string]bool
	// Values, when a name has an entry, are the strings it can hold: an
	// == or != comparison of it with any other string literal is an error
	// (a typo that makes the comparison constant).
	Values map[string][]string
	// AnyName accepts every identifier (for expressions the generator
	// validated already; ParseTrusted).
	AnyName bool
}

// ParseTrusted parses an expression the generator validated against its
// scope already (the generated table's): any name, the dtype functions and
// the builtins.
func ParseTrusted(src string) (*Expr, error) {
	return Parse(src, Decl{AnyName: true, Funcs: DtypeFuncSet()})
}

// Expr is a parsed, validated expression.
type Expr struct {
	Src  string
	root ast.Expr
	// lits holds the integer literals, parsed once, so evaluation does no
	// string parsing (Select evaluates rules for thousands of variants).
	lits map[*ast.BasicLit]Value
}

// Error is a parse or validation error with a column offset (1-based) into Src.
type Error struct {
	Col int
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("col %d: %s", e.Col, e.Msg) }

var allowedBinary = map[token.Token]bool{
	token.ADD: true, token.SUB: true, token.MUL: true, token.QUO: true, token.REM: true,
	token.EQL: true, token.NEQ: true, token.LSS: true, token.LEQ: true, token.GTR: true, token.GEQ: true,
	token.LAND: true, token.LOR: true,
}

// MaxBytes bounds an expression's source: an arch's predicted-time key
// (templates/archs/*.yaml prefer with model: constants) spells out every
// term of the model in one expression.
const MaxBytes = 4096

// Parse parses src and checks it uses only what decl allows.
func Parse(src string, decl Decl) (*Expr, error) {
	if len(src) > MaxBytes {
		return nil, &Error{Col: 1, Msg: fmt.Sprintf("expression longer than %d bytes", MaxBytes)}
	}
	root, err := parser.ParseExpr(src)
	if err != nil {
		if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
			return nil, &Error{Col: list[0].Pos.Column, Msg: "syntax: " + list[0].Msg}
		}
		return nil, &Error{Col: 1, Msg: "syntax: " + err.Error()}
	}
	e := &Expr{Src: src, root: root, lits: map[*ast.BasicLit]Value{}}
	if err := check(root, decl); err != nil {
		return nil, err
	}
	ast.Inspect(root, func(n ast.Node) bool {
		if l, ok := n.(*ast.BasicLit); ok {
			if l.Kind == token.INT {
				i, _ := strconv.ParseInt(l.Value, 0, 64)
				e.lits[l] = Int(i)
			} else {
				s, _ := strconv.Unquote(l.Value)
				e.lits[l] = Str(s)
			}
		}
		return true
	})
	return e, nil
}

func check(n ast.Expr, decl Decl) error {
	pos := func(n ast.Node) int { return int(n.Pos()) }
	switch n := n.(type) {
	case *ast.BasicLit:
		if n.Kind != token.INT && n.Kind != token.STRING {
			return &Error{pos(n), fmt.Sprintf("literal %s not allowed (integers and strings only)", n.Value)}
		}
		if n.Kind == token.INT {
			if _, err := strconv.ParseInt(n.Value, 0, 64); err != nil {
				return &Error{pos(n), "integer out of range: " + n.Value}
			}
		} else if s, err := strconv.Unquote(n.Value); err != nil || !isIdentLike(s) {
			return &Error{pos(n), fmt.Sprintf("string %s not allowed (letters, digits and _ only)", n.Value)}
		}
	case *ast.Ident:
		if !decl.Names[n.Name] && !decl.AnyName {
			return &Error{pos(n), fmt.Sprintf("unknown name %q (allowed: %s)", n.Name, keys(decl.Names))}
		}
	case *ast.ParenExpr:
		return check(n.X, decl)
	case *ast.UnaryExpr:
		if n.Op != token.NOT && n.Op != token.SUB {
			return &Error{pos(n), fmt.Sprintf("operator %s not allowed", n.Op)}
		}
		return check(n.X, decl)
	case *ast.BinaryExpr:
		if !allowedBinary[n.Op] {
			return &Error{int(n.OpPos), fmt.Sprintf("operator %s not allowed (allowed: + - * / %% == != < <= > >= && || !)", n.Op)}
		}
		if err := check(n.X, decl); err != nil {
			return err
		}
		if err := check(n.Y, decl); err != nil {
			return err
		}
		if n.Op == token.EQL || n.Op == token.NEQ {
			return checkValue(n, decl)
		}
	case *ast.CallExpr:
		id, ok := n.Fun.(*ast.Ident)
		if ok && builtins[id.Name] != nil {
			if len(n.Args) != 2 || n.Ellipsis.IsValid() {
				return &Error{pos(n), id.Name + " takes two arguments"}
			}
			if err := check(n.Args[0], decl); err != nil {
				return err
			}
			return check(n.Args[1], decl)
		}
		if !ok || !decl.Funcs[id.Name] {
			return &Error{pos(n), fmt.Sprintf("call not allowed (allowed functions: %s)", keys(decl.Funcs))}
		}
		if len(n.Args) != 1 || n.Ellipsis.IsValid() {
			return &Error{pos(n), id.Name + " takes one argument"}
		}
		return check(n.Args[0], decl)
	default:
		return &Error{pos(n), fmt.Sprintf("%T not allowed in a rule", n)}
	}
	return nil
}

// checkValue refuses a comparison of a name with a string literal that is
// not one of the name's declared values.
func checkValue(n *ast.BinaryExpr, decl Decl) error {
	for _, p := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
		id, ok := unparen(p[0]).(*ast.Ident)
		lit, ok2 := unparen(p[1]).(*ast.BasicLit)
		if !ok || !ok2 || lit.Kind != token.STRING {
			continue
		}
		vals, ok := decl.Values[id.Name]
		if !ok {
			continue
		}
		s, _ := strconv.Unquote(lit.Value)
		found := false
		for _, v := range vals {
			found = found || v == s
		}
		if !found {
			return &Error{int(lit.Pos()), fmt.Sprintf("%s is never %s (its values: %s), so %s %s %s is always %v", id.Name, lit.Value, strings.Join(vals, ", "), id.Name, n.Op, lit.Value, n.Op == token.NEQ)}
		}
	}
	return nil
}

func isIdentLike(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func keys(m map[string]bool) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sortStrings(ks)
	if len(ks) == 0 {
		return "none"
	}
	return strings.Join(ks, ", ")
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Names returns the names the expression refers to, in order of appearance.
func (e *Expr) Names() []string {
	var out []string
	seen := map[string]bool{}
	ast.Inspect(e.root, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			for _, a := range c.Args {
				ast.Inspect(a, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok && !seen[id.Name] {
						seen[id.Name] = true
						out = append(out, id.Name)
					}
					return true
				})
			}
			return false
		}
		if id, ok := n.(*ast.Ident); ok && !seen[id.Name] {
			seen[id.Name] = true
			out = append(out, id.Name)
		}
		return true
	})
	return out
}

// Bool evaluates the expression as a condition.
func (e *Expr) Bool(env Env) (bool, error) {
	v, err := e.eval(e.root, env)
	if err != nil {
		return false, fmt.Errorf("%s: %w", e.Src, err)
	}
	if v.IsStr {
		return false, fmt.Errorf("%s: is a string, want a condition", e.Src)
	}
	return v.Int != 0, nil
}

// Eval evaluates the expression to a value.
func (e *Expr) Eval(env Env) (Value, error) {
	v, err := e.eval(e.root, env)
	if err != nil {
		return Value{}, fmt.Errorf("%s: %w", e.Src, err)
	}
	return v, nil
}

func b2i(b bool) Value {
	if b {
		return Int(1)
	}
	return Int(0)
}

func (e *Expr) eval(n ast.Expr, env Env) (Value, error) {
	switch n := n.(type) {
	case *ast.BasicLit:
		return e.lits[n], nil
	case *ast.Ident:
		v, ok := env.Lookup(n.Name)
		if !ok {
			return Value{}, fmt.Errorf("%s has no value here", n.Name)
		}
		return v, nil
	case *ast.ParenExpr:
		return e.eval(n.X, env)
	case *ast.UnaryExpr:
		x, err := e.eval(n.X, env)
		if err != nil {
			return x, err
		}
		if x.IsStr {
			return Value{}, fmt.Errorf("operator %s on a string", n.Op)
		}
		if n.Op == token.NOT {
			return b2i(x.Int == 0), nil
		}
		return Int(-x.Int), nil
	case *ast.CallExpr:
		a, err := e.eval(n.Args[0], env)
		if err != nil {
			return a, err
		}
		name := n.Fun.(*ast.Ident).Name
		if f := builtins[name]; f != nil {
			b, err := e.eval(n.Args[1], env)
			if err != nil {
				return b, err
			}
			if a.IsStr || b.IsStr {
				return Value{}, fmt.Errorf("%s of a string", name)
			}
			return f(a.Int, b.Int)
		}
		return env.Call(name, a)
	case *ast.BinaryExpr:
		x, err := e.eval(n.X, env)
		if err != nil {
			return x, err
		}
		// Short-circuit as C does, so a guard like "k > 0 && n % k == 0" is safe.
		if n.Op == token.LAND && !x.IsStr && x.Int == 0 {
			return Int(0), nil
		}
		if n.Op == token.LOR && !x.IsStr && x.Int != 0 {
			return Int(1), nil
		}
		y, err := e.eval(n.Y, env)
		if err != nil {
			return y, err
		}
		return binary(n.Op, x, y)
	}
	return Value{}, fmt.Errorf("cannot evaluate %T", n)
}

// builtins are the two-argument functions every expression may call: min,
// max and cdiv (division rounded up, for workgroup counts).
var builtins = map[string]func(a, b int64) (Value, error){
	"min": func(a, b int64) (Value, error) { return Int(min(a, b)), nil },
	"max": func(a, b int64) (Value, error) { return Int(max(a, b)), nil },
	"cdiv": func(a, b int64) (Value, error) {
		if b <= 0 {
			return Value{}, fmt.Errorf("cdiv by %d (want a positive divisor)", b)
		}
		if a <= 0 {
			return Int(a / b), nil
		}
		return Int((a-1)/b + 1), nil
	},
}

// Builtins lists the two-argument functions every expression may call; the
// C printer passes them to call as fn with "a, b".
var Builtins = []string{"cdiv", "max", "min"}

// C prints the expression as a C expression. name maps each identifier to C
// text; strconst maps a string literal to a C integer constant (strings are
// interned as enums in C); call maps a function call to C text.
func (e *Expr) C(name func(string) string, strconst func(string) string, call func(fn, arg string) string) string {
	var b strings.Builder
	printC(&b, e.root, name, strconst, call, "")
	return b.String()
}

// CChecked prints the expression as C whose arithmetic cannot trap or be
// undefined: + - * and unary - become calls prefix+"add"/"sub"/"mul"/"neg"
// (the caller defines them wrapping, as Go's int64 arithmetic does), and /
// and % become prefix+"div"/"rem" (defined to give 0 for a zero divisor,
// where Go's evaluator reports division by zero, and to wrap the one
// overflowing quotient, MinInt64 / -1, as Go does). Comparisons and logic
// stay operators: they cannot trap.
func (e *Expr) CChecked(prefix string, name func(string) string, strconst func(string) string, call func(fn, arg string) string) string {
	var b strings.Builder
	printC(&b, e.root, name, strconst, call, prefix)
	return b.String()
}

// checkedOps names the helper printed for each arithmetic operator by
// CChecked.
var checkedOps = map[token.Token]string{token.ADD: "add", token.SUB: "sub", token.MUL: "mul", token.QUO: "div", token.REM: "rem"}

func printC(b *strings.Builder, n ast.Expr, name func(string) string, strconst func(string) string, call func(fn, arg string) string, checked string) {
	switch n := n.(type) {
	case *ast.BasicLit:
		if n.Kind == token.INT {
			i, _ := strconv.ParseInt(n.Value, 0, 64)
			fmt.Fprintf(b, "%dLL", i)
			return
		}
		s, _ := strconv.Unquote(n.Value)
		b.WriteString(strconst(s))
	case *ast.Ident:
		b.WriteString(name(n.Name))
	case *ast.ParenExpr:
		printC(b, n.X, name, strconst, call, checked)
	case *ast.UnaryExpr:
		if checked != "" && n.Op == token.SUB {
			b.WriteString(checked + "neg(")
			printC(b, n.X, name, strconst, call, checked)
			b.WriteString(")")
			return
		}
		b.WriteString("(" + n.Op.String())
		printC(b, n.X, name, strconst, call, checked)
		b.WriteString(")")
	case *ast.CallExpr:
		var a strings.Builder
		printC(&a, n.Args[0], name, strconst, call, checked)
		fn := n.Fun.(*ast.Ident).Name
		if builtins[fn] != nil {
			var c strings.Builder
			printC(&c, n.Args[1], name, strconst, call, checked)
			b.WriteString(call(fn, a.String()+", "+c.String()))
			return
		}
		b.WriteString(call(fn, a.String()))
	case *ast.BinaryExpr:
		if op, ok := checkedOps[n.Op]; ok && checked != "" {
			b.WriteString(checked + op + "(")
			printC(b, n.X, name, strconst, call, checked)
			b.WriteString(", ")
			printC(b, n.Y, name, strconst, call, checked)
			b.WriteString(")")
			return
		}
		b.WriteString("(")
		printC(b, n.X, name, strconst, call, checked)
		b.WriteString(" " + n.Op.String() + " ")
		printC(b, n.Y, name, strconst, call, checked)
		b.WriteString(")")
	}
}

// MapEnv is an Env over a map, with named one-argument functions.
type MapEnv struct {
	Vars  map[string]Value
	Funcs map[string]func(Value) (Value, error)
}

// Lookup implements Env.
func (m MapEnv) Lookup(name string) (Value, bool) { v, ok := m.Vars[name]; return v, ok }

// Call implements Env.
func (m MapEnv) Call(fn string, arg Value) (Value, error) {
	f, ok := m.Funcs[fn]
	if !ok {
		return Value{}, fmt.Errorf("no function %s", fn)
	}
	return f(arg)
}
