package expr

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

var decl = Decl{
	Names: map[string]bool{"m": true, "n": true, "k": true, "pack": true, "layout": true, "dtype": true},
	Funcs: map[string]bool{"bytes": true},
}

func env(vars map[string]Value) MapEnv {
	return MapEnv{Vars: vars, Funcs: map[string]func(Value) (Value, error){
		"bytes": func(v Value) (Value, error) {
			switch v.Str {
			case "f32":
				return Int(4), nil
			case "bf16":
				return Int(2), nil
			}
			return Value{}, fmt.Errorf("%s is not a dtype", v)
		},
	}}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		src  string
		col  int
		frag string
	}{
		{"m >= ", 6, "syntax"},
		{"m >= 1 &&", 10, "syntax"},
		{"(m", 3, "syntax"},
		{"m ++ 1", 3, "syntax"},
		{"bogus + 1", 1, `unknown name "bogus"`},
		{"m + bogus", 5, `unknown name "bogus"`},
		{"m << 2", 3, "operator << not allowed"},
		{"m & 1", 3, "operator & not allowed"},
		{"m ^ 1", 3, "operator ^ not allowed"},
		{"^m", 1, "operator ^ not allowed"},
		{"f(m)", 1, "call not allowed (allowed functions: bytes)"},
		{"bytes(m, n)", 1, "bytes takes one argument"},
		{"bytes()", 1, "bytes takes one argument"},
		{"bytes(m...)", 1, "bytes takes one argument"},
		{"m.x", 1, "*ast.SelectorExpr not allowed"},
		{"m[0]", 1, "*ast.IndexExpr not allowed"},
		{"func() int { return 1 }()", 1, "call not allowed"},
		{"1.5 > m", 1, "literal 1.5 not allowed"},
		{"'a' == m", 1, "literal 'a' not allowed"},
		{`layout == "sub group"`, 11, `string "sub group" not allowed`},
		{`layout == "a\"b"`, 11, "not allowed"},
		{"m > 99999999999999999999", 5, "integer out of range"},
		{"m == /* c */ 1 ||", 18, "syntax"},
		{strings.Repeat("m+", 2100) + "m", 1, "longer than 4096 bytes"},
	} {
		_, err := Parse(c.src, decl)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: %v, want an *Error", c.src, err)
			continue
		}
		if e.Col != c.col || !strings.Contains(e.Msg, c.frag) {
			t.Errorf("%q: col %d %q, want col %d and %q", c.src, e.Col, e.Msg, c.col, c.frag)
		}
		if !strings.HasPrefix(err.Error(), fmt.Sprintf("col %d: ", e.Col)) {
			t.Errorf("%q: %q does not name its column", c.src, err)
		}
	}
}

func TestEval(t *testing.T) {
	vars := map[string]Value{"m": Int(3), "n": Int(10), "k": Int(0), "pack": Int(4), "layout": Str("subgroup"), "dtype": Str("bf16")}
	for _, c := range []struct {
		src  string
		want Value
	}{
		{"m + n * 2 - 1", Int(22)},
		{"(m + n) * 2", Int(26)},
		{"n / m", Int(3)},
		{"n % m", Int(1)},
		{"-n / m", Int(-3)},
		{"-n % m", Int(-1)},
		{"!m", Int(0)},
		{"!k", Int(1)},
		{"m < n && n <= 10 && n >= 10 && m > 2 && m != n && m == 3", Int(1)},
		{`layout == "subgroup"`, Int(1)},
		{`layout != "subgroup"`, Int(0)},
		{"bytes(dtype) * pack", Int(8)},
		{`(layout == "subgroup") * 7`, Int(7)},
		{"9223372036854775807 + 1", Int(-9223372036854775808)}, // int64 wraps, as C's long long does in practice
		// Short-circuit, as in C: the guarded division is never evaluated.
		{"k > 0 && n % k == 0", Int(0)},
		{"k == 0 || n / k > 1", Int(1)},
		{"k != 0 && bytes(\"f64\") > 0", Int(0)},
		{"2 && 3", Int(1)},
		{"0 || 0", Int(0)},
		{`layout`, Str("subgroup")},
		{"layout == `subgroup`", Int(1)}, // a raw string literal is a string like any other
	} {
		e, err := Parse(c.src, decl)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		got, err := e.Eval(env(vars))
		if err != nil || got != c.want {
			t.Errorf("%q = %v, %v; want %v", c.src, got, err, c.want)
		}
	}
	for _, c := range []struct{ src, frag string }{
		{"n / k", "division by zero"},
		{"n % k", "division by zero"},
		{"k == 0 && n / k > 1", "division by zero"},
		{"layout + 1", "compares a string with a number"},
		{`layout < "z"`, "operator < on strings"},
		{"-layout", "operator - on a string"},
		{`bytes("f64")`, "is not a dtype"},
		{"bytes(m)", "is not a dtype"},
	} {
		e, err := Parse(c.src, decl)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if _, err := e.Eval(env(vars)); err == nil || !strings.Contains(err.Error(), c.frag) || !strings.HasPrefix(err.Error(), c.src+": ") {
			t.Errorf("%q: error %v, want %q prefixed by the expression", c.src, err, c.frag)
		}
	}
	// A declared name without a value in the environment.
	e, _ := Parse("m + n", decl)
	if _, err := e.Eval(env(map[string]Value{"m": Int(1)})); err == nil || !strings.Contains(err.Error(), "n has no value here") {
		t.Errorf("missing value: %v", err)
	}
	// Bool wants a number.
	e, _ = Parse("layout", decl)
	if _, err := e.Bool(env(vars)); err == nil || !strings.Contains(err.Error(), "is a string, want a condition") {
		t.Errorf("Bool of a string: %v", err)
	}
	e, _ = Parse("m - 3", decl)
	if b, err := e.Bool(env(vars)); err != nil || b {
		t.Errorf("Bool(0) = %v, %v", b, err)
	}
	// An environment without the function.
	e, _ = Parse("bytes(dtype)", decl)
	if _, err := e.Eval(MapEnv{Vars: vars}); err == nil || !strings.Contains(err.Error(), "no function bytes") {
		t.Errorf("missing function: %v", err)
	}
}

func TestNames(t *testing.T) {
	e, err := Parse(`(layout == "splitk") * (n * 4 >= m * pack) + bytes(dtype) + n`, decl)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(e.Names(), " "); got != "layout n m pack dtype" {
		t.Errorf("Names = %q", got)
	}
}

func TestC(t *testing.T) {
	name := func(n string) string { return "v." + n }
	str := func(s string) string { return "S_" + s }
	call := func(fn, arg string) string { return fn + "_c(" + arg + ")" }
	for _, c := range []struct{ src, want string }{
		{"m >= 1 && m <= 8", "((v.m >= 1LL) && (v.m <= 8LL))"},
		{`layout != "subgroup" || m * 2 <= 512`, "((v.layout != S_subgroup) || ((v.m * 2LL) <= 512LL))"},
		{"-m + !n", "((-v.m) + (!v.n))"},
		{"16 / (pack * bytes(dtype))", "(16LL / (v.pack * bytes_c(v.dtype)))"},
		{"0x10 % 3", "(16LL % 3LL)"},
		{"(((m)))", "v.m"},
	} {
		e, err := Parse(c.src, decl)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if got := e.C(name, str, call); got != c.want {
			t.Errorf("C(%q) = %q, want %q", c.src, got, c.want)
		}
	}
}

// The printed C keeps Go's precedence explicit: evaluating the C text's
// structure (fully parenthesized) gives the Go result. Check it by parsing
// the C output back as Go (it is valid Go once the LL suffixes go).
func TestCRoundTrip(t *testing.T) {
	vars := map[string]Value{"m": Int(5), "n": Int(-7), "k": Int(3), "pack": Int(8), "layout": Str("subgroup"), "dtype": Str("f32")}
	for _, src := range []string{
		"m - n - k", "m * n % k + pack / 3", "m < n == (k > 1)", "!m || n && k", "-m * -n", "m - (n - k) * 2 / pack % 5",
	} {
		e, err := Parse(src, decl)
		if err != nil {
			t.Fatal(err)
		}
		c := strings.ReplaceAll(e.C(func(n string) string { return n }, func(s string) string { return s }, func(fn, arg string) string { return fn + "(" + arg + ")" }), "LL", "")
		back, err := Parse(c, decl)
		if err != nil {
			t.Fatalf("%q printed as %q: %v", src, c, err)
		}
		a, err1 := e.Eval(env(vars))
		b, err2 := back.Eval(env(vars))
		if err1 != nil || err2 != nil || a != b {
			t.Errorf("%q = %v (%v); printed %q = %v (%v)", src, a, err1, c, b, err2)
		}
	}
}

func TestDeclValuesAndInts(t *testing.T) {
	d := decl
	d.Values = map[string][]string{"layout": {"subgroup", "splitk"}}
	for _, src := range []string{`layout == "splitk" || m % 256 == 0 && k >= 0x10`, `"subgroup" != (layout)`, `dtype == "anything"`} {
		if _, err := Parse(src, d); err != nil {
			t.Errorf("Parse(%s): %v", src, err)
		}
	}
	for src, col := range map[string]int{`layout == "splitK"`: 11, `m > 1 && "sg" != layout`: 10} {
		_, err := Parse(src, d)
		var ee *Error
		if !errors.As(err, &ee) || ee.Col != col || !strings.Contains(ee.Msg, "layout is never") || !strings.Contains(ee.Msg, "its values: subgroup, splitk") {
			t.Errorf("Parse(%s) = %v, want an error at col %d saying layout is never that value", src, err, col)
		}
	}
	e, _ := Parse(`m % 256 == 0 && k >= 0x10 && n > 0`, d)
	if got := fmt.Sprint(e.Ints()); got != "[256 0 16 0]" {
		t.Errorf("Ints() = %s, want [256 0 16 0]", got)
	}
}

// TestCChecked: CChecked prints arithmetic through helper calls (so the C
// cannot overflow signed integers or divide by zero) and leaves
// comparisons, logic and calls as C prints them.
func TestCChecked(t *testing.T) {
	name := func(n string) string { return "v." + n }
	str := func(s string) string { return "S_" + s }
	call := func(fn, arg string) string { return fn + "_c(" + arg + ")" }
	for _, c := range []struct{ src, want string }{
		{"m >= 1 && m <= 8", "((v.m >= 1LL) && (v.m <= 8LL))"},
		{`layout != "subgroup" || m * 2 <= 512`, "((v.layout != S_subgroup) || (kg_mul(v.m, 2LL) <= 512LL))"},
		{"-m + !n", "kg_add(kg_neg(v.m), (!v.n))"},
		{"16 / (pack * bytes(dtype))", "kg_div(16LL, kg_mul(v.pack, bytes_c(v.dtype)))"},
		{"n % k - cdiv(n, k)", "kg_sub(kg_rem(v.n, v.k), cdiv_c(v.n, v.k))"},
	} {
		e, err := Parse(c.src, decl)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if got := e.CChecked("kg_", name, str, call); got != c.want {
			t.Errorf("CChecked(%q) = %q, want %q", c.src, got, c.want)
		}
	}
}
