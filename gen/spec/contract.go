package spec

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/kgen-dev/kgen/runtime/expr"
)

// Launch is a family's launch contract: what a host allocates, binds and
// launches for an op. Its expressions are over the op (m, n, k), the
// variant's parameters, the device facts (ArchNames) and the lets before
// them; runtime.Plan evaluates them and kgen_select.h prints them as C.
type Launch struct {
	Let []*Let
	// Workgroup is the lanes per workgroup; WorkgroupParam is the Vulkan
	// specialization constant that receives it.
	Workgroup      *expr.Expr
	WorkgroupParam string
	// Grid gives workgroup counts (x, y, z), or Groups a linear count that
	// the runtime folds into x and y (x <= 65535; the kernels get grid_x).
	Grid    [3]*expr.Expr
	Groups  *expr.Expr
	Buffers []*Buffer
	Args    []*Arg
	Pos     Pos
}

// Let is a named value of a contract.
type Let struct {
	Name string
	Expr *expr.Expr
}

// Buffer is one buffer a family's kernels bind, in binding order.
type Buffer struct {
	Name  string
	Dir   string // in, out, scratch
	Elem  string // weight, act, f32, u32, or the reference's block format
	Bytes *expr.Expr
	Align *expr.Expr // element alignment of the offset; nil: none
	Zero  bool       // must hold zeros before the first launch
}

// Arg is one 32-bit launch argument (Vulkan push constant, HIP kernel
// argument after the buffers).
type Arg struct {
	Name    string
	Expr    *expr.Expr
	Backend string // "" both, else hip or vulkan only
}

// Verify is how a family's kernels are checked against a CPU reference.
type Verify struct {
	Reference string
	Compare   string // relative or exact
	Poison    uint32
	Ulps      int        // relative: bound = Ulps * 2^-24 * sqrt(Terms + 1)
	Terms     *expr.Expr // relative: the terms each output sums (over m, n, k)
	Guard     int        // exact: poisoned bytes after the output that must stay
	Let       []*Let
	Cases     []*Case
}

// Case is one verification shape; MTo repeats it for m from M to MTo.
type Case struct {
	M, MTo, N, K *expr.Expr
	When         *expr.Expr
}

// Directions and element types a contract's buffers may have.
var (
	BufferDirs  = []string{"in", "out", "scratch"}
	BufferElems = []string{"weight", "act", "f32", "u32", "q8k", "q8_1"}
	Compares    = []string{"relative", "exact"}
)

// VerifyNames are names only verification expressions see: native is 1 when
// the variant belongs to the device's own arch or class.
var VerifyNames = []string{"native"}

type rawLaunch struct {
	Let       []*rawLet `yaml:"let"`
	Workgroup *struct {
		Value string `yaml:"value"`
		Param string `yaml:"param"`
	} `yaml:"workgroup"`
	Grid    []string     `yaml:"grid"`
	Groups  string       `yaml:"groups"`
	Buffers []*rawBuffer `yaml:"buffers"`
	Args    []*rawArg    `yaml:"args"`
}

type rawLet struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

type rawBuffer struct {
	Name  string `yaml:"name"`
	Dir   string `yaml:"dir"`
	Elem  string `yaml:"elem"`
	Bytes string `yaml:"bytes"`
	Align string `yaml:"align"`
	Zero  bool   `yaml:"zero"`
}

type rawArg struct {
	Name    string `yaml:"name"`
	Value   string `yaml:"value"`
	Backend string `yaml:"backend"`
}

type rawVerify struct {
	Reference string `yaml:"reference"`
	Compare   *struct {
		Mode   string `yaml:"mode"`
		Poison uint32 `yaml:"poison"`
		Ulps   int    `yaml:"ulps"`
		Terms  string `yaml:"terms"`
		Guard  int    `yaml:"guard"`
	} `yaml:"compare"`
	Let   []*rawLet  `yaml:"let"`
	Cases []*rawCase `yaml:"cases"`
}

type rawCase struct {
	M    string `yaml:"m"`
	MTo  string `yaml:"m_to"`
	N    string `yaml:"n"`
	K    string `yaml:"k"`
	When string `yaml:"when"`
}

type pathFn = func(*yaml.PathBuilder) *yaml.PathBuilder

// bufNameRe is a buffer or argument name: it names a kernel parameter.
var bufNameRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,31}$`)

// contractExpr parses one expression of a contract at p.
func (l *loader) contractExpr(src string, decl expr.Decl, p Pos, what string) (*expr.Expr, error) {
	if src == "" {
		return nil, &Error{p, what + " is missing: want an expression"}
	}
	r, err := l.rule(&rawRule{Rule: src, Why: what}, decl, p)
	if err != nil {
		return nil, err
	}
	return r.Expr, nil
}

// lets parses a list of lets, adding each name to decl for what follows.
func (l *loader) lets(raw []*rawLet, decl expr.Decl, at func(pathFn) Pos, key string) ([]*Let, error) {
	var out []*Let
	for i, rl := range raw {
		p := at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child(key).Index(uint(i)) })
		if rl == nil || !identRe.MatchString(rl.Name) {
			return nil, &Error{p, fmt.Sprintf("%s: want {name: IDENT, value: EXPR} with a lower-case identifier name", key)}
		}
		if decl.Names[rl.Name] {
			return nil, &Error{p, fmt.Sprintf("%s %q: the name is already taken (by a parameter, an op or device name, or an earlier let)", key, rl.Name)}
		}
		e, err := l.contractExpr(rl.Value, decl, at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child(key).Index(uint(i)).Child("value") }), "let "+rl.Name)
		if err != nil {
			return nil, err
		}
		decl.Names[rl.Name] = true
		out = append(out, &Let{Name: rl.Name, Expr: e})
	}
	return out, nil
}

// launch validates a family's launch contract. params are the family's
// parameter names.
func (l *loader) launch(f *Family, rl *rawLaunch, params map[string]bool, at func(pathFn) Pos) (*Launch, error) {
	here := at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b })
	if rl == nil {
		return nil, nil // CheckContracts reports it, after the spec's other mistakes
	}
	names := map[string]bool{}
	for k := range params {
		names[k] = true
	}
	for _, k := range append(append([]string{}, ArchNames...), "m", "n", "k") {
		names[k] = true
	}
	decl := expr.Decl{Names: names, Funcs: dtypeFuncNames()}
	c := &Launch{Pos: here}
	var err error
	if c.Let, err = l.lets(rl.Let, decl, at, "let"); err != nil {
		return nil, err
	}
	wpos := at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("workgroup") })
	if rl.Workgroup == nil {
		return nil, &Error{here, "launch has no workgroup: want workgroup: {value: EXPR, param: NAME}"}
	}
	if c.Workgroup, err = l.contractExpr(rl.Workgroup.Value, decl, at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("workgroup").Child("value") }), "workgroup"); err != nil {
		return nil, err
	}
	if f.Templates[BackendVulkan] != "" {
		ok := false
		for _, sc := range f.VulkanSpecialization {
			ok = ok || sc.Param == rl.Workgroup.Param
		}
		if !ok {
			return nil, &Error{wpos, fmt.Sprintf("workgroup.param %q: want the vulkan specialization constant that receives the workgroup size", rl.Workgroup.Param)}
		}
	}
	c.WorkgroupParam = rl.Workgroup.Param
	switch {
	case len(rl.Grid) > 0 && rl.Groups != "":
		return nil, &Error{here, "launch gives both grid and groups: want one (grid: [x, y, z] counts, or groups: a linear count folded into x and y)"}
	case rl.Groups != "":
		if c.Groups, err = l.contractExpr(rl.Groups, decl, at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("groups") }), "groups"); err != nil {
			return nil, err
		}
	case len(rl.Grid) == 3:
		for i, g := range rl.Grid {
			if c.Grid[i], err = l.contractExpr(g, decl, at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("grid").Index(uint(i)) }), "grid"); err != nil {
				return nil, err
			}
		}
	default:
		return nil, &Error{here, "launch needs grid: [x, y, z] (three expressions) or groups: EXPR"}
	}
	if len(rl.Buffers) == 0 {
		return nil, &Error{here, "launch has no buffers"}
	}
	seen := map[string]bool{}
	outs := 0
	for i, rb := range rl.Buffers {
		bp := func(key string) Pos {
			return at(func(b *yaml.PathBuilder) *yaml.PathBuilder {
				b = b.Child("buffers").Index(uint(i))
				if key != "" {
					b = b.Child(key)
				}
				return b
			})
		}
		if rb == nil || !bufNameRe.MatchString(rb.Name) {
			return nil, &Error{bp(""), "buffer: want {name: IDENT, dir, elem, bytes} with a name of letters, digits and _"}
		}
		if seen[rb.Name] {
			return nil, &Error{bp("name"), fmt.Sprintf("buffer %s is listed twice", rb.Name)}
		}
		seen[rb.Name] = true
		if !contains(BufferDirs, rb.Dir) {
			return nil, &Error{bp("dir"), fmt.Sprintf("buffer %s: dir %q; allowed: %s", rb.Name, rb.Dir, strings.Join(BufferDirs, ", "))}
		}
		if rb.Dir == "out" {
			outs++
		}
		if !contains(BufferElems, rb.Elem) {
			return nil, &Error{bp("elem"), fmt.Sprintf("buffer %s: elem %q; allowed: %s", rb.Name, rb.Elem, strings.Join(BufferElems, ", "))}
		}
		b := &Buffer{Name: rb.Name, Dir: rb.Dir, Elem: rb.Elem, Zero: rb.Zero}
		if b.Bytes, err = l.contractExpr(rb.Bytes, decl, bp("bytes"), "buffer "+rb.Name+" bytes"); err != nil {
			return nil, err
		}
		if rb.Align != "" {
			if b.Align, err = l.contractExpr(rb.Align, decl, bp("align"), "buffer "+rb.Name+" align"); err != nil {
				return nil, err
			}
		}
		c.Buffers = append(c.Buffers, b)
	}
	if outs != 1 {
		return nil, &Error{here, fmt.Sprintf("launch has %d buffers with dir: out; want exactly one (the output verification compares)", outs)}
	}
	argDecl := expr.Decl{Names: map[string]bool{"grid_x": true}, Funcs: decl.Funcs}
	for k := range names {
		argDecl.Names[k] = true
	}
	seenArg := map[string]bool{}
	for i, ra := range rl.Args {
		ap := func(key string) Pos {
			return at(func(b *yaml.PathBuilder) *yaml.PathBuilder {
				b = b.Child("args").Index(uint(i))
				if key != "" {
					b = b.Child(key)
				}
				return b
			})
		}
		if ra == nil || !bufNameRe.MatchString(ra.Name) {
			return nil, &Error{ap(""), "arg: want {name: IDENT, value: EXPR[, backend: hip|vulkan]}"}
		}
		if ra.Backend != "" && ra.Backend != BackendHIP && ra.Backend != BackendVulkan {
			return nil, &Error{ap("backend"), fmt.Sprintf("arg %s: backend %q; allowed: hip, vulkan (or none: both)", ra.Name, ra.Backend)}
		}
		key := ra.Backend + "/" + ra.Name
		if seenArg[key] || seenArg["/"+ra.Name] {
			return nil, &Error{ap("name"), fmt.Sprintf("arg %s is listed twice", ra.Name)}
		}
		seenArg[key] = true
		e, err := l.contractExpr(ra.Value, argDecl, ap("value"), "arg "+ra.Name)
		if err != nil {
			return nil, err
		}
		if ra.Value == "grid_x" && c.Groups == nil || containsName(e.Names(), "grid_x") && c.Groups == nil {
			return nil, &Error{ap("value"), fmt.Sprintf("arg %s uses grid_x, which only a folded launch (groups:) has", ra.Name)}
		}
		c.Args = append(c.Args, &Arg{Name: ra.Name, Expr: e, Backend: ra.Backend})
	}
	return c, nil
}

// verify validates a family's verification section.
func (l *loader) verify(f *Family, rv *rawVerify, params map[string]bool, at func(pathFn) Pos) (*Verify, error) {
	here := at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b })
	if rv == nil {
		return nil, nil // CheckContracts reports it
	}
	if !identRe.MatchString(rv.Reference) {
		return nil, &Error{at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("reference") }), fmt.Sprintf("verify.reference %q: want the name of a CPU reference registered in runtime/ref", rv.Reference)}
	}
	v := &Verify{Reference: rv.Reference}
	cpos := at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("compare") })
	if rv.Compare == nil || !contains(Compares, rv.Compare.Mode) {
		return nil, &Error{cpos, fmt.Sprintf("verify.compare: want {mode: %s, ...}", strings.Join(Compares, "|"))}
	}
	cmp := rv.Compare
	v.Compare, v.Poison, v.Ulps, v.Guard = cmp.Mode, cmp.Poison, cmp.Ulps, cmp.Guard
	shape := expr.Decl{Names: map[string]bool{"m": true, "n": true, "k": true}, Funcs: dtypeFuncNames()}
	for k := range params {
		shape.Names[k] = true
	}
	switch cmp.Mode {
	case "relative":
		if cmp.Ulps < 1 || cmp.Ulps > 1<<20 || cmp.Guard != 0 {
			return nil, &Error{cpos, "verify.compare relative: want ulps: 1..1048576 (the bound is ulps * 2^-24 * sqrt(terms + 1)) and terms: EXPR, no guard"}
		}
		var err error
		if v.Terms, err = l.contractExpr(cmp.Terms, shape, cpos, "verify.compare.terms"); err != nil {
			return nil, err
		}
	case "exact":
		if cmp.Ulps != 0 || cmp.Terms != "" || cmp.Guard < 0 || cmp.Guard > 1<<16 {
			return nil, &Error{cpos, "verify.compare exact: want guard: 0..65536 bytes, no ulps or terms"}
		}
	}
	names := map[string]bool{}
	for k := range params {
		names[k] = true
	}
	for _, k := range append(append([]string{}, ArchNames...), VerifyNames...) {
		names[k] = true
	}
	decl := expr.Decl{Names: names, Funcs: dtypeFuncNames()}
	var err error
	if v.Let, err = l.lets(rv.Let, decl, at, "let"); err != nil {
		return nil, err
	}
	if len(rv.Cases) == 0 {
		return nil, &Error{here, "verify has no cases: want cases: [{m, n, k}, ...]"}
	}
	for i, rc := range rv.Cases {
		cp := func(key string) Pos {
			return at(func(b *yaml.PathBuilder) *yaml.PathBuilder {
				b = b.Child("cases").Index(uint(i))
				if key != "" {
					b = b.Child(key)
				}
				return b
			})
		}
		if rc == nil {
			return nil, &Error{cp(""), "empty case: want {m, n, k[, m_to, when]}"}
		}
		c := &Case{}
		for _, fld := range []struct {
			key, src string
			dst      **expr.Expr
			optional bool
		}{{"m", rc.M, &c.M, false}, {"m_to", rc.MTo, &c.MTo, true}, {"n", rc.N, &c.N, false}, {"k", rc.K, &c.K, false}, {"when", rc.When, &c.When, true}} {
			if fld.src == "" && fld.optional {
				continue
			}
			if *fld.dst, err = l.contractExpr(fld.src, decl, cp(fld.key), "case "+fld.key); err != nil {
				return nil, err
			}
		}
		v.Cases = append(v.Cases, c)
	}
	return v, nil
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

// dtypeFuncNames are the functions rules call on a dtype name.
func dtypeFuncNames() map[string]bool {
	return expr.DtypeFuncSet()
}

// CheckContracts reports a family without a launch contract or a verify
// section: the runtime could neither launch nor verify its kernels. gen
// calls it after expanding and rendering, so the spec's other mistakes are
// reported first.
func CheckContracts(s *Spec) error {
	for _, f := range s.Families {
		if f.Launch == nil {
			return &Error{f.Pos, fmt.Sprintf("family %s has no launch contract: add launch: {workgroup, grid or groups, buffers, args} (ARCHITECTURE.md, \"Launch contracts\")", f.Name)}
		}
		if f.Verify == nil {
			return &Error{f.Pos, fmt.Sprintf("family %s has no verify section: add verify: {reference, compare, cases} naming its CPU reference in runtime/ref", f.Name)}
		}
	}
	return nil
}
