package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/kgen-dev/kgen/runtime/expr"
)

// KernelsFile is the kernel spec's path under the templates root.
const KernelsFile = "kernels.yaml"

// ArchDir holds one spec file per arch or device class.
const ArchDir = "archs"

// MaxFileBytes bounds a spec file: specs are small, and a huge file is a
// mistake or an attack, not a spec.
const MaxFileBytes = 1 << 20

// Error is a spec error at a position.
type Error struct {
	Pos Pos
	Msg string
}

// Error is one line: spec text quoted in a message cannot break it (or reach
// a terminal as control characters).
func (e *Error) Error() string { return e.Pos.String() + ": " + printable(e.Msg) }

// printable escapes the characters of s that are not printable, as Go would
// in a quoted string.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsPrint(r) {
			b.WriteRune(r)
		} else {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}

// show prints a YAML value in a message: strings quoted.
func show(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// Grammars for names that reach templates, file names and generated code.
var (
	identRe  = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
	valueRe  = regexp.MustCompile(`^[a-z0-9][a-z0-9_]{0,31}$`)
	prefixRe = regexp.MustCompile(`^[a-z]{0,4}$`)
	pathRe   = regexp.MustCompile(`^[a-z0-9_]+(/[a-z0-9_]+)*\.(hip|comp)\.tmpl$`)
	digitsRe = regexp.MustCompile(`^[0-9]+$`)
	// HIP arch names are passed to the compiler (--offload-arch=NAME).
	amdgcnRe = regexp.MustCompile(`^gfx[0-9a-z]+$`)
	cudaRe   = regexp.MustCompile(`^sm[0-9a-z]+$`)
)

// Bounds on spec text and lists.
const (
	// MaxDocBytes and MaxWhyBytes bound doc and why texts, which reach
	// comments in generated C, GLSL and Go and gen explain's output.
	MaxDocBytes = 300
	MaxWhyBytes = 200
	// MaxPreferKeys bounds a family's prefer keys and an arch's for one
	// family: the C selector holds both in a 64-entry array.
	MaxPreferKeys = 32
	// MaxInt bounds integer axis and derived values.
	MaxInt = 1 << 20
	// MaxSpecID bounds Vulkan specialization constant ids.
	MaxSpecID = 1023
	// MaxCombinations bounds the product of a family's axis sizes, which
	// expansion walks for every arch (gemv has a few thousand).
	MaxCombinations = 1 << 17
	// DefaultMaxVariants bounds the variants one family expands to on one
	// arch unless the family sets max_variants: every variant is a kernel
	// in generated/ and a table row, so growing an axis tenfold should be a
	// decision, not a surprise. The largest today is gemv on sm90, 2272.
	DefaultMaxVariants = 4096
)

// badText says what is wrong with a doc, why or rule text, or "". Text is
// one line of printable characters (no control, format or bidi characters:
// what the reader sees is what the compiler sees), without a backslash or a
// "??" (a line splice, or a trigraph for one, at the end of a // comment
// would comment out the next generated line) and without "/*" or "*/" (which
// would open or close a C comment).
func badText(s string, max int) string {
	if len(s) > max {
		return fmt.Sprintf("is %d bytes; at most %d", len(s), max)
	}
	for i, r := range s {
		if !unicode.IsPrint(r) {
			return fmt.Sprintf("has the non-printable character %U at byte %d: want one line of printable text", r, i)
		}
	}
	for _, bad := range []string{"*/", "/*", "\\", "??"} {
		if strings.Contains(s, bad) {
			return fmt.Sprintf("contains %q, which generated comments cannot hold", bad)
		}
	}
	return ""
}

// badInt says what is wrong with an integer value (all digits), or "".
// Integers are written in canonical form, so that a value's name fragment
// and its number agree, and are bounded.
func badInt(v string) string {
	if !digitsRe.MatchString(v) {
		return ""
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil || n > MaxInt:
		return fmt.Sprintf("out of range 0..%d", MaxInt)
	case strconv.Itoa(n) != v:
		return "write integers without leading zeros"
	}
	return ""
}

// nonInt returns a value of parameter p (an axis or a derived parameter of
// f) that is not an integer.
func nonInt(f *Family, p string) (string, bool) {
	for _, ax := range f.Axes {
		if ax.Name == p {
			for _, v := range ax.Values {
				if !digitsRe.MatchString(v) {
					return v, true
				}
			}
		}
		for _, d := range ax.Derive {
			if v, ok := d[p]; ok && !digitsRe.MatchString(v) {
				return v, true
			}
		}
	}
	return "", false
}

// Load reads and validates the spec under root (the templates directory).
// File names in errors are prefixed with displayDir (e.g. "templates").
func Load(root fs.FS, displayDir string) (*Spec, error) {
	l := &loader{root: root, dir: displayDir, files: map[string][]byte{}, asts: map[string]*ast.File{}}
	s, err := l.load()
	if err != nil {
		return nil, err
	}
	return s, nil
}

type loader struct {
	root  fs.FS
	dir   string
	files map[string][]byte
	asts  map[string]*ast.File
}

func (l *loader) display(name string) string {
	if l.dir == "" {
		return name
	}
	return path.Join(l.dir, name)
}

// checkTree refuses anything under the templates root that is neither a
// directory nor a regular file, before any file is read: kgen reads only
// regular files inside templates/. A symbolic link (to a file or a
// directory, inside the tree or outside it) would be followed by the
// loader and the renderer (os.DirFS follows links), so a spec or template
// under review could be other bytes than the ones kgen reads; a FIFO or
// device could block or never end. The walk itself does not follow links
// (fs.WalkDir reports a link as an entry and does not descend into it). The
// root is not checked: `gen --templates DIR` may name a link.
func (l *loader) checkTree() error {
	tree := "the templates tree"
	if l.dir != "" {
		tree = l.dir + "/"
	}
	return fs.WalkDir(l.root, ".", func(p string, d fs.DirEntry, err error) error {
		at := Pos{File: l.display(p), Line: 1, Col: 1}
		if err != nil {
			if p == "." {
				return nil // an unreadable root: reading kernels.yaml reports it
			}
			return &Error{at, "cannot read: " + err.Error()}
		}
		t := d.Type()
		switch {
		case t&fs.ModeSymlink != 0:
			what := "a symbolic link"
			if target, err := fs.ReadLink(l.root, p); err == nil {
				what += " to " + strconv.Quote(target)
			}
			return &Error{at, what + ": kgen reads only regular files inside " + tree + " and does not follow links; replace the link with the file or directory itself"}
		case d.IsDir() || t.IsRegular():
			return nil
		}
		return &Error{at, fmt.Sprintf("not a regular file or directory (%v): kgen reads only regular files inside %s", t, tree)}
	})
}

// read reads a spec file and decodes it strictly into v.
func (l *loader) read(name string, v any) error {
	data, err := fs.ReadFile(l.root, name)
	if err != nil {
		return &Error{Pos{File: l.display(name), Line: 1, Col: 1}, "cannot read: " + err.Error()}
	}
	if len(data) > MaxFileBytes {
		return &Error{Pos{File: l.display(name), Line: 1, Col: 1}, fmt.Sprintf("file is %d bytes, the limit is %d", len(data), MaxFileBytes)}
	}
	if !utf8.Valid(data) {
		line, col := invalidUTF8Pos(data)
		return &Error{Pos{l.display(name), line, col}, "file is not valid UTF-8"}
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		line, col := bytePos(data, i)
		return &Error{Pos{l.display(name), line, col}, "file contains a NUL byte"}
	}
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		return &Error{Pos{File: l.display(name), Line: 1, Col: 1}, "file starts with a byte order mark; save it as UTF-8 without one"}
	}
	// Bound the work before parsing: go-yaml's parser and decoder take
	// time and memory that grow faster than linearly with nesting depth
	// and with the number of keys, so a small file could exhaust both.
	if err := checkTokens(lexer.Tokenize(string(data))); err != nil {
		return l.yamlErr(name, err)
	}
	l.files[name] = data
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return l.yamlErr(name, err)
	}
	if err := checkNodes(f); err != nil {
		return l.yamlErr(name, err)
	}
	l.asts[name] = f
	if err := yaml.UnmarshalWithOptions(data, v, yaml.Strict()); err != nil {
		return l.yamlErr(name, err)
	}
	return nil
}

// Limits on a spec file's YAML: the real specs use a few hundred tokens and
// nest about ten levels deep.
const (
	MaxTokens = 20000
	MaxDepth  = 64
)

// checkTokens refuses token streams that are too long or nest too deep. The
// depth counted is an upper bound of the YAML nesting: open flow collections,
// plus the indentation levels in force, plus the block entries ("- ", "? ",
// and ": " outside flow collections) that open nested nodes on one line.
func checkTokens(toks token.Tokens) error {
	if len(toks) > MaxTokens {
		return &nodeError{toks[MaxTokens], fmt.Sprintf("more than %d YAML tokens: spec files are small", MaxTokens)}
	}
	flow, line, onLine := 0, -1, 0
	var indents []int
	for _, t := range toks {
		if t.Type == token.CommentType || t.Position == nil {
			continue
		}
		if t.Position.Line != line {
			line, onLine = t.Position.Line, 0
			if flow == 0 {
				for len(indents) > 0 && indents[len(indents)-1] >= t.Position.Column {
					indents = indents[:len(indents)-1]
				}
				indents = append(indents, t.Position.Column)
			}
		}
		switch t.Type {
		case token.SequenceStartType, token.MappingStartType:
			flow++
		case token.SequenceEndType, token.MappingEndType:
			if flow > 0 {
				flow--
			}
		case token.SequenceEntryType, token.MappingKeyType:
			onLine++
		case token.MappingValueType:
			if flow == 0 {
				onLine++
			}
		}
		if len(indents)+onLine+flow > MaxDepth {
			return &nodeError{t, fmt.Sprintf("nested more than %d levels deep", MaxDepth)}
		}
	}
	return nil
}

// checkNodes refuses what spec files have no use for and what go-yaml would
// silently misread: more than one document, anchors and aliases (aliases of
// aliases are how a small file expands into a huge one), merge keys, tags,
// directives, explicit "?" keys, floats (an int field would take 32.5 as 32)
// and mapping keys that are not strings (go-yaml drops the whole struct when
// a struct's key is not a string).
func checkNodes(f *ast.File) error {
	var bad *nodeError
	for i, d := range f.Docs {
		if d == nil {
			continue
		}
		if i > 0 {
			tok := d.Start
			if tok == nil && d.Body != nil {
				tok = d.Body.GetToken()
			}
			if tok != nil {
				return &nodeError{tok, "a spec file holds one YAML document; remove the second"}
			}
		}
		if d.Body == nil {
			continue
		}
		ast.Walk(visitorFunc(func(n ast.Node) bool {
			if bad != nil || n == nil {
				return false
			}
			msg := ""
			switch n.Type() {
			case ast.AliasType, ast.AnchorType:
				msg = "YAML anchors and aliases are not allowed in spec files"
			case ast.MergeKeyType:
				msg = "YAML merge keys (<<) are not allowed in spec files"
			case ast.TagType:
				msg = "YAML tags are not allowed in spec files"
			case ast.DirectiveType:
				msg = "YAML directives are not allowed in spec files"
			case ast.MappingKeyType:
				msg = "explicit keys (\"? \") are not allowed in spec files"
			case ast.FloatType, ast.InfinityType, ast.NanType:
				msg = "numbers in spec files are integers"
			case ast.MappingValueType:
				k := n.(*ast.MappingValueNode).Key
				switch {
				case k == nil || k.Type() == ast.StringType || k.Type() == ast.MergeKeyType:
				case k.Type() == ast.MappingKeyType:
					bad = &nodeError{k.GetToken(), "explicit keys (\"? \") are not allowed in spec files"}
				default:
					bad = &nodeError{k.GetToken(), fmt.Sprintf("mapping key %s is not a name (quote it if it is an integer value)", k.GetToken().Value)}
				}
				if bad != nil {
					return false
				}
			}
			if msg != "" {
				bad = &nodeError{n.GetToken(), msg}
				return false
			}
			return true
		}), d.Body)
		if bad != nil {
			return bad
		}
	}
	return nil
}

// nodeError is a problem at a YAML token.
type nodeError struct {
	tok *token.Token
	msg string
}

func (e *nodeError) Error() string { return e.msg }

type visitorFunc func(ast.Node) bool

func (f visitorFunc) Visit(n ast.Node) ast.Visitor {
	if f(n) {
		return f
	}
	return nil
}

// bytePos is the line and column (in runes) of data[i].
func bytePos(data []byte, i int) (int, int) {
	before := data[:i]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}

func invalidUTF8Pos(data []byte) (int, int) {
	line, col := 1, 1
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		if r == utf8.RuneError && n <= 1 {
			return line, col
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		data = data[n:]
	}
	return line, col
}

// yamlErr turns a go-yaml error into an Error with the token's position.
func (l *loader) yamlErr(name string, err error) error {
	type tokErr interface {
		GetToken() *token.Token
		GetMessage() string
	}
	var te tokErr
	if errors.As(err, &te) && te.GetToken() != nil {
		p := te.GetToken().Position
		return &Error{Pos{l.display(name), p.Line, p.Column}, typeMsg(cleanYAMLMsg(te.GetMessage()), keyAt(l.asts[name], p.Line, p.Column))}
	}
	var ne *nodeError
	if errors.As(err, &ne) && ne.tok != nil && ne.tok.Position != nil {
		p := ne.tok.Position
		return &Error{Pos{l.display(name), p.Line, p.Column}, ne.msg}
	}
	return &Error{Pos{File: l.display(name), Line: 1, Col: 1}, cleanYAMLMsg(err.Error())}
}

// typeErrRe matches go-yaml's type errors (after cleanYAMLMsg), which name
// kgen's Go types rather than the spec's keys.
var typeErrRe = regexp.MustCompile(`^cannot use (.+?) into Go (?:struct field \S+ of type|value of type) (\S+)(.*)$`)

// typeMsg rewrites a go-yaml type error in the spec's terms: the key (when
// known) and the kinds of value wanted and found.
func typeMsg(m, key string) string {
	if sm := usedWhereRe.FindStringSubmatch(m); sm != nil && key != "" {
		return fmt.Sprintf("%s: want %s, not %s", key, kind(sm[2]), kind(sm[1]))
	}
	sm := typeErrRe.FindStringSubmatch(m)
	if sm == nil {
		return m
	}
	found, want := sm[1], kind(sm[2])
	if key != "" {
		key += ": "
	}
	if strings.Contains(sm[3], "overflow") {
		return fmt.Sprintf("%s%s is out of range (want %s)", key, found, want)
	}
	return fmt.Sprintf("%swant %s, not %s", key, want, kind(found))
}

// usedWhereRe matches go-yaml's "sequence was used where mapping is expected".
var usedWhereRe = regexp.MustCompile(`^(\w+) was used where (\w+) is expected$`)

// kind names a Go type (or a YAML node kind) the way the spec reference does.
func kind(goType string) string {
	switch {
	case goType == "sequence":
		return "a list"
	case goType == "mapping":
		return "a mapping"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map[") || strings.Contains(goType, "spec.raw"):
		return "a mapping"
	case goType == "bool":
		return "true or false"
	case goType == "string":
		return "a string"
	case strings.HasPrefix(goType, "uint"):
		return "a non-negative integer"
	case strings.HasPrefix(goType, "int"):
		return "an integer"
	}
	return goType
}

// keyAt returns the key whose value starts at line:col, or "".
func keyAt(f *ast.File, line, col int) string {
	if f == nil {
		return ""
	}
	key := ""
	for _, d := range f.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		ast.Walk(visitorFunc(func(n ast.Node) bool {
			if key != "" || n == nil {
				return false
			}
			if mv, ok := n.(*ast.MappingValueNode); ok && mv.Key != nil && mv.Value != nil {
				if t := mv.Value.GetToken(); t != nil && t.Position != nil && t.Position.Line == line && t.Position.Column == col {
					key = mv.Key.GetToken().Value
					return false
				}
			}
			return true
		}), d.Body)
	}
	return key
}

func cleanYAMLMsg(m string) string {
	m = strings.TrimSpace(m)
	m = strings.ReplaceAll(m, "cannot unmarshal", "cannot use")
	if strings.Contains(m, "unknown field") {
		m += " (unknown keys are errors; check the spelling against ARCHITECTURE.md's spec reference)"
	}
	return m
}

// pos finds the position of the node at a YAML path built by b.
func (l *loader) pos(name string, build func(*yaml.PathBuilder) *yaml.PathBuilder) Pos {
	p := Pos{File: l.display(name), Line: 1, Col: 1}
	f := l.asts[name]
	if f == nil {
		return p
	}
	yp := build((&yaml.PathBuilder{}).Root()).Build()
	n, err := yp.FilterFile(f)
	if err != nil || n == nil || n.GetToken() == nil {
		return p
	}
	t := n.GetToken().Position
	return Pos{l.display(name), t.Line, t.Column}
}

// --- raw file shapes ---------------------------------------------------------

type rawKernels struct {
	Dtypes   map[string]*rawDtype  `yaml:"dtypes"`
	Families map[string]*rawFamily `yaml:"families"`
}

type rawDtype struct {
	Weight      string `yaml:"weight"`
	Act         string `yaml:"act"`
	WeightBytes int    `yaml:"weight_bytes"`
	ActBytes    int    `yaml:"act_bytes"`
	Scaled      bool   `yaml:"scaled"`
	WeightBlock int    `yaml:"weight_block"`
	ActBlock    int    `yaml:"act_block"`
}

type rawFamily struct {
	Doc         string            `yaml:"doc"`
	Templates   map[string]string `yaml:"templates"`
	Axes        []*rawAxis        `yaml:"axes"`
	Constraints []*rawRule        `yaml:"constraints"`
	Vulkan      *rawVulkan        `yaml:"vulkan"`
	Select      *rawSelect        `yaml:"select"`
	Launch      *rawLaunch        `yaml:"launch"`
	Verify      *rawVerify        `yaml:"verify"`
	MaxVariants *int              `yaml:"max_variants"`
	Bench       *struct {
		Baseline string `yaml:"baseline"`
	} `yaml:"bench"`
	FedBy map[string]*rawFeed `yaml:"fed_by"`
}

type rawAxis struct {
	Name    string                    `yaml:"name"`
	Prefix  string                    `yaml:"prefix"`
	Values  []any                     `yaml:"values"`
	Unnamed any                       `yaml:"unnamed"`
	Derive  map[string]map[string]any `yaml:"derive"`
}

type rawRule struct {
	Rule string `yaml:"rule"`
	Why  string `yaml:"why"`
}

type rawVulkan struct {
	Baked          []string          `yaml:"baked"`
	Specialization map[string]uint32 `yaml:"specialization"`
}

type rawSelect struct {
	Outside  []*rawRule `yaml:"outside"`
	Eligible []*rawRule `yaml:"eligible"`
	Prefer   []*rawRule `yaml:"prefer"`
}

type rawArch struct {
	Arch         string                      `yaml:"arch"`
	Backend      string                      `yaml:"backend"`
	Target       string                      `yaml:"target"`
	IntDot       string                      `yaml:"int_dot"`
	Coopmat      string                      `yaml:"coopmat"`
	Doc          string                      `yaml:"doc"`
	Wave         int                         `yaml:"wave"`
	ComputeUnits int                         `yaml:"compute_units"`
	SharedMemory int                         `yaml:"shared_memory"`
	Dtypes       []string                    `yaml:"dtypes"`
	Emit         map[string]map[string][]any `yaml:"emit"`
	Match        *rawMatch                   `yaml:"match"`
	Prefer       map[string][]*rawRule       `yaml:"prefer"`
	Model        map[string]int64            `yaml:"model"`
}

type rawMatch struct {
	VendorID   uint32 `yaml:"vendor_id"`
	DriverName string `yaml:"driver_name"`
}

// --- loading -----------------------------------------------------------------

var weightTypes = map[string]int{"f32": 4, "f16": 2, "bf16": 2, "e4m3": 1}
var actTypes = map[string]int{"f32": 4, "f16": 2, "bf16": 2}

// OpNames are the names an op supplies to selection rules: tokens in flight
// (m), output rows (n), reduction length (k) and the alignment in elements of
// the weight and activation buffers' offsets (align).
var OpNames = []string{"m", "n", "k", "align"}

// ArchNames are the arch facts rules may use.
var ArchNames = []string{"wave", "compute_units", "shared_memory"}

// BuildArchNames are arch facts only constraints may use: they decide what
// is generated, and the runtime never needs them ("target": amdgcn or cuda
// for hip archs, "" for vulkan ones; "int_dot": the arch's 4 x int8 dot
// instruction, "" for none; "coopmat": a Vulkan class's cooperative-matrix
// extension, "" for none).
var BuildArchNames = []string{"target", "int_dot", "coopmat"}

func (l *loader) load() (*Spec, error) {
	if err := l.checkTree(); err != nil {
		return nil, err
	}
	var rk rawKernels
	if err := l.read(KernelsFile, &rk); err != nil {
		return nil, err
	}
	s := &Spec{Dtypes: map[string]*Dtype{}, Files: l.files}
	if len(rk.Dtypes) == 0 {
		return nil, &Error{l.pos(KernelsFile, func(b *yaml.PathBuilder) *yaml.PathBuilder { return b }), "no dtypes: the kernel spec must list dtypes"}
	}
	for _, name := range sortedKeys(rk.Dtypes) {
		d := rk.Dtypes[name]
		at := func(key string) Pos {
			return l.pos(KernelsFile, func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("dtypes").Child(name).Child(key) })
		}
		if !identRe.MatchString(name) {
			return nil, &Error{l.pos(KernelsFile, func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("dtypes") }), fmt.Sprintf("dtype name %q: want a lower-case identifier matching %s", name, identRe)}
		}
		if d == nil {
			return nil, &Error{at(""), fmt.Sprintf("dtype %s is empty", name)}
		}
		wblock, ablock, err := dtypeBlocks(name, d, at)
		if err != nil {
			return nil, err
		}
		if b, ok := weightTypes[d.Weight]; wblock == 1 && (!ok || b != d.WeightBytes) {
			return nil, &Error{at("weight"), fmt.Sprintf("dtype %s: weight %q with weight_bytes %d; allowed: f32 (4), f16 (2), bf16 (2), e4m3 (1), or a block format (%s)", name, d.Weight, d.WeightBytes, blockTypeList())}
		}
		if b, ok := actTypes[d.Act]; ablock == 1 && (!ok || b != d.ActBytes) {
			return nil, &Error{at("act"), fmt.Sprintf("dtype %s: act %q with act_bytes %d; allowed: f32 (4), f16 (2), bf16 (2), or a block format (%s)", name, d.Act, d.ActBytes, blockTypeList())}
		}
		if d.Weight == "e4m3" && !d.Scaled {
			return nil, &Error{at("scaled"), fmt.Sprintf("dtype %s: e4m3 weights need scaled: true (one f32 scale per output row)", name)}
		}
		s.Dtypes[name] = &Dtype{Name: name, Weight: d.Weight, Act: d.Act, WeightBytes: d.WeightBytes, ActBytes: d.ActBytes, Scaled: d.Scaled,
			WeightBlock: wblock, ActBlock: ablock}
	}
	if len(rk.Families) == 0 {
		return nil, &Error{l.pos(KernelsFile, func(b *yaml.PathBuilder) *yaml.PathBuilder { return b }), "no families: the kernel spec must define at least one family"}
	}
	for _, name := range sortedKeys(rk.Families) {
		f, err := l.family(s, name, rk.Families[name])
		if err != nil {
			return nil, err
		}
		s.Families = append(s.Families, f)
	}
	if err := checkFeeds(s); err != nil {
		return nil, err
	}
	archFiles, err := fs.Glob(l.root, ArchDir+"/*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(archFiles)
	if len(archFiles) == 0 {
		return nil, &Error{Pos{File: l.display(ArchDir)}, "no arch files: add one YAML file per arch or device class"}
	}
	seen := map[string]string{}
	for _, af := range archFiles {
		a, err := l.arch(s, af)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[a.Name]; dup {
			return nil, &Error{a.Pos, fmt.Sprintf("arch %q is already defined by %s", a.Name, prev)}
		}
		seen[a.Name] = af
		s.Archs = append(s.Archs, a)
	}
	// Two device classes with one match would leave the class of a device
	// to file order (runtime.VulkanClass picks the class matching on most
	// fields; equal matches tie).
	matches := map[Match]*Arch{}
	for _, a := range s.Archs {
		if a.Match == nil {
			continue
		}
		k := Match{VendorID: a.Match.VendorID, DriverName: strings.ToLower(a.Match.DriverName)}
		if prev, dup := matches[k]; dup {
			return nil, &Error{a.MatchPos, fmt.Sprintf("device classes %s and %s have the same match (vendor_id 0x%x, driver_name %q): a device would get either; give one a driver_name or another vendor_id", prev.Name, a.Name, k.VendorID, a.Match.DriverName)}
		}
		matches[k] = a
	}
	sort.Slice(s.Archs, func(i, j int) bool {
		if s.Archs[i].Backend != s.Archs[j].Backend {
			return s.Archs[i].Backend < s.Archs[j].Backend
		}
		return s.Archs[i].Name < s.Archs[j].Name
	})
	return s, nil
}

func (l *loader) family(s *Spec, name string, rf *rawFamily) (*Family, error) {
	fpath := func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("families").Child(name) }
	at := func(more func(*yaml.PathBuilder) *yaml.PathBuilder) Pos {
		return l.pos(KernelsFile, func(b *yaml.PathBuilder) *yaml.PathBuilder { return more(fpath(b)) })
	}
	here := at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b })
	if !identRe.MatchString(name) {
		return nil, &Error{l.pos(KernelsFile, func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("families") }), fmt.Sprintf("family name %q: want a lower-case identifier matching %s", name, identRe)}
	}
	if rf == nil || len(rf.Axes) == 0 {
		return nil, &Error{here, fmt.Sprintf("family %s has no axes: a family needs at least one axis", name)}
	}
	if rf.Doc != "" {
		if why := badText(rf.Doc, MaxDocBytes); why != "" {
			return nil, &Error{at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("doc") }), "doc " + why}
		}
	}
	f := &Family{Name: name, Doc: rf.Doc, Templates: map[string]string{}, Pos: here}
	if err := maxVariants(f, rf, at); err != nil {
		return nil, err
	}
	if len(rf.Templates) == 0 {
		return nil, &Error{here, fmt.Sprintf("family %s has no templates (want templates: {hip: ..., vulkan: ...})", name)}
	}
	for _, be := range sortedKeys(rf.Templates) {
		tp := rf.Templates[be]
		tpos := at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("templates").Child(be) })
		if be != BackendHIP && be != BackendVulkan {
			return nil, &Error{tpos, fmt.Sprintf("unknown backend %q; allowed: hip, vulkan", be)}
		}
		if !pathRe.MatchString(tp) {
			return nil, &Error{tpos, fmt.Sprintf("template path %q: want a relative path of lower-case names ending in .hip.tmpl or .comp.tmpl", tp)}
		}
		if _, err := fs.Stat(l.root, tp); err != nil {
			return nil, &Error{tpos, fmt.Sprintf("template %q does not exist under %s", tp, l.dir)}
		}
		f.Templates[be] = tp
	}
	axisNames := map[string]bool{}
	derived := map[string]bool{}
	for i, ra := range rf.Axes {
		apos := func(more func(*yaml.PathBuilder) *yaml.PathBuilder) Pos {
			return at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return more(b.Child("axes").Index(uint(i))) })
		}
		if ra == nil {
			return nil, &Error{apos(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b }), "empty axis"}
		}
		if !identRe.MatchString(ra.Name) {
			return nil, &Error{apos(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("name") }), fmt.Sprintf("axis name %q: want a lower-case identifier matching %s", ra.Name, identRe)}
		}
		if axisNames[ra.Name] {
			return nil, &Error{apos(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("name") }), fmt.Sprintf("axis %q is defined twice", ra.Name)}
		}
		axisNames[ra.Name] = true
		if !prefixRe.MatchString(ra.Prefix) {
			return nil, &Error{apos(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("prefix") }), fmt.Sprintf("prefix %q: want 0-4 lower-case letters", ra.Prefix)}
		}
		ax := &Axis{Name: ra.Name, Prefix: ra.Prefix, Pos: apos(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b })}
		if len(ra.Values) == 0 {
			return nil, &Error{ax.Pos, fmt.Sprintf("axis %s has no values", ra.Name)}
		}
		ax.Ints = true
		seenV := map[string]bool{}
		for j, rv := range ra.Values {
			vpos := apos(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("values").Index(uint(j)) })
			v, isInt, err := scalar(rv)
			if err != nil || !valueRe.MatchString(v) {
				return nil, &Error{vpos, fmt.Sprintf("axis %s value %s: want an integer or a lower-case identifier", ra.Name, show(rv))}
			}
			if why := badInt(v); why != "" {
				return nil, &Error{vpos, fmt.Sprintf("axis %s value %s: %s", ra.Name, v, why)}
			}
			if seenV[v] {
				return nil, &Error{vpos, fmt.Sprintf("axis %s lists %s twice", ra.Name, v)}
			}
			seenV[v] = true
			ax.Ints = ax.Ints && isInt
			ax.Values = append(ax.Values, v)
		}
		if ra.Unnamed != nil {
			upos := apos(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("unnamed") })
			v, _, err := scalar(ra.Unnamed)
			if err != nil || !seenV[v] {
				return nil, &Error{upos, fmt.Sprintf("axis %s: unnamed %s is not one of its values", ra.Name, show(ra.Unnamed))}
			}
			if ra.Name == "dtype" {
				return nil, &Error{upos, "axis dtype: every dtype is named (unnamed is for an axis added to a family)"}
			}
			ax.Unnamed = v
		}
		if ra.Name == "dtype" {
			for j, v := range ax.Values {
				if s.Dtypes[v] == nil {
					return nil, &Error{apos(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("values").Index(uint(j)) }), fmt.Sprintf("unknown dtype %q; allowed: %s", v, strings.Join(sortedKeys(s.Dtypes), ", "))}
				}
			}
		}
		if len(ra.Derive) > 0 {
			ax.Derive = map[string]map[string]string{}
			var keys []string
			for _, v := range ax.Values {
				dv, ok := ra.Derive[v]
				dpos := apos(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("derive") })
				if !ok {
					return nil, &Error{dpos, fmt.Sprintf("axis %s: derive has no entry for value %s (every value needs one)", ra.Name, v)}
				}
				ks := sortedKeys(dv)
				if keys == nil {
					keys = ks
				} else if strings.Join(ks, ",") != strings.Join(keys, ",") {
					return nil, &Error{dpos, fmt.Sprintf("axis %s: derive for %s defines %q, others define %q (all values must define the same keys)", ra.Name, v, ks, keys)}
				}
				m := map[string]string{}
				for _, k := range ks {
					sv, _, err := scalar(dv[k])
					if err != nil || !identRe.MatchString(k) || !valueRe.MatchString(sv) {
						return nil, &Error{dpos, fmt.Sprintf("axis %s: derive for %s: %q = %s: want an identifier key and an integer or identifier value", ra.Name, v, k, show(dv[k]))}
					}
					if why := badInt(sv); why != "" {
						return nil, &Error{dpos, fmt.Sprintf("axis %s: derive for %s: %s = %s: %s", ra.Name, v, k, sv, why)}
					}
					m[k] = sv
					derived[k] = true
				}
				ax.Derive[v] = m
			}
			for v := range ra.Derive {
				if !seenV[v] {
					return nil, &Error{apos(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("derive").Child(v) }), fmt.Sprintf("axis %s: derive names %q, which is not one of its values (%s)", ra.Name, v, strings.Join(ax.Values, ", "))}
				}
			}
		}
		f.Axes = append(f.Axes, ax)
	}
	combos := 1
	for _, ax := range f.Axes {
		if combos *= len(ax.Values); combos > MaxCombinations {
			return nil, &Error{here, fmt.Sprintf("family %s: its axes multiply to more than %d combinations per arch", name, MaxCombinations)}
		}
	}
	if !axisNames["dtype"] {
		return nil, &Error{here, fmt.Sprintf("family %s has no dtype axis", name)}
	}
	for k := range derived {
		if axisNames[k] {
			return nil, &Error{here, fmt.Sprintf("derived parameter %q has the name of an axis", k)}
		}
	}
	params := map[string]bool{}
	for k := range axisNames {
		params[k] = true
	}
	for k := range derived {
		params[k] = true
	}
	for _, k := range ArchNames {
		params[k] = true
	}
	funcs := dtypeFuncNames()
	constraintNames := map[string]bool{}
	for k := range params {
		constraintNames[k] = true
	}
	for _, k := range BuildArchNames {
		constraintNames[k] = true
	}
	constraintDecl := expr.Decl{Names: constraintNames, Funcs: funcs, Values: stringValues(f)}
	constraintDecl.Values["target"] = []string{"amdgcn", "cuda"}
	constraintDecl.Values["int_dot"] = []string{"dp4a", "khr", "sdot4", "sudot4"}
	constraintDecl.Values["coopmat"] = Coopmats
	for i, rr := range rf.Constraints {
		r, err := l.rule(rr, constraintDecl, at(func(b *yaml.PathBuilder) *yaml.PathBuilder {
			return b.Child("constraints").Index(uint(i)).Child("rule")
		}))
		if err != nil {
			return nil, err
		}
		f.Constraints = append(f.Constraints, r)
	}
	if rf.Vulkan != nil {
		vpos := at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("vulkan") })
		if f.Templates[BackendVulkan] == "" {
			return nil, &Error{vpos, fmt.Sprintf("family %s has vulkan settings but no vulkan template", name)}
		}
		for _, p := range rf.Vulkan.Baked {
			if !params[p] || contains(ArchNames, p) {
				return nil, &Error{vpos, fmt.Sprintf("vulkan.baked names %q; allowed: the family's axes and derived parameters (%s)", p, strings.Join(sortedKeys(params), ", "))}
			}
		}
		f.VulkanBaked = rf.Vulkan.Baked
		ids := map[uint32]string{}
		for _, p := range sortedKeys(rf.Vulkan.Specialization) {
			id := rf.Vulkan.Specialization[p]
			if !params[p] || contains(f.VulkanBaked, p) {
				return nil, &Error{vpos, fmt.Sprintf("vulkan.specialization names %q; allowed: parameters not baked (%s)", p, strings.Join(sortedKeys(params), ", "))}
			}
			if id > MaxSpecID {
				return nil, &Error{vpos, fmt.Sprintf("vulkan.specialization gives %s id %d; allowed: 0..%d", p, id, MaxSpecID)}
			}
			if v, ok := nonInt(f, p); ok {
				return nil, &Error{vpos, fmt.Sprintf("vulkan.specialization names %s, which takes the value %s: a specialization constant is an integer", p, v)}
			}
			if prev, dup := ids[id]; dup {
				return nil, &Error{vpos, fmt.Sprintf("vulkan.specialization gives id %d to both %s and %s", id, prev, p)}
			}
			ids[id] = p
			f.VulkanSpecialization = append(f.VulkanSpecialization, SpecConst{Param: p, ID: id})
		}
		if _, ok := rf.Vulkan.Specialization["wg"]; !ok {
			return nil, &Error{vpos, "vulkan.specialization must bind wg: the shaders take their workgroup size from it"}
		}
		bound := func(p string) bool {
			_, isSpec := rf.Vulkan.Specialization[p]
			return isSpec || contains(f.VulkanBaked, p)
		}
		for _, ax := range f.Axes {
			covered := bound(ax.Name)
			if !covered && len(ax.Derive) > 0 {
				// An axis whose derived parameters are all bound is bound.
				covered = true
				for k := range ax.Derive[ax.Values[0]] {
					covered = covered && bound(k)
				}
			}
			if !covered {
				return nil, &Error{vpos, fmt.Sprintf("axis %s is neither baked nor a specialization constant for vulkan (nor are all its derived parameters)", ax.Name)}
			}
		}
	} else if f.Templates[BackendVulkan] != "" {
		return nil, &Error{here, fmt.Sprintf("family %s has a vulkan template but no vulkan: {baked, specialization} section", name)}
	}
	if rf.Select != nil {
		selNames := map[string]bool{}
		for k := range params {
			selNames[k] = true
		}
		for _, k := range OpNames {
			selNames[k] = true
		}
		decl := expr.Decl{Names: selNames, Funcs: funcs, Values: stringValues(f)}
		f.Select = &Select{}
		lists := []struct {
			key string
			raw []*rawRule
			dst *[]*Rule
		}{{"outside", rf.Select.Outside, &f.Select.Outside}, {"eligible", rf.Select.Eligible, &f.Select.Eligible}, {"prefer", rf.Select.Prefer, &f.Select.Prefer}}
		if len(rf.Select.Prefer) > MaxPreferKeys {
			return nil, &Error{at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("select").Child("prefer") }), fmt.Sprintf("%d prefer keys; at most %d", len(rf.Select.Prefer), MaxPreferKeys)}
		}
		for _, li := range lists {
			for i, rr := range li.raw {
				r, err := l.rule(rr, decl, at(func(b *yaml.PathBuilder) *yaml.PathBuilder {
					return b.Child("select").Child(li.key).Index(uint(i)).Child("rule")
				}))
				if err != nil {
					return nil, err
				}
				*li.dst = append(*li.dst, r)
			}
		}
	}
	var err error
	if f.Launch, err = l.launch(f, rf.Launch, params, func(more pathFn) Pos {
		return at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return more(b.Child("launch")) })
	}); err != nil {
		return nil, err
	}
	if f.Verify, err = l.verify(f, rf.Verify, params, func(more pathFn) Pos {
		return at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return more(b.Child("verify")) })
	}); err != nil {
		return nil, err
	}
	if rf.Bench != nil {
		bpos := at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("bench").Child("baseline") })
		r, err := l.rule(&rawRule{Rule: rf.Bench.Baseline, Why: "baseline"}, constraintDecl, bpos)
		if err != nil {
			return nil, err
		}
		f.Baseline = r
	}
	if f.FedBy, err = l.feeds(f, rf.FedBy, at); err != nil {
		return nil, err
	}
	return f, nil
}

func (l *loader) rule(rr *rawRule, decl expr.Decl, p Pos) (*Rule, error) {
	if rr == nil || rr.Rule == "" {
		return nil, &Error{p, "empty rule: want {rule: EXPR, why: TEXT}"}
	}
	if rr.Why == "" {
		return nil, &Error{p, "rule needs a why: one line (at most 200 bytes) saying why it holds"}
	}
	if why := badText(rr.Why, MaxWhyBytes); why != "" {
		return nil, &Error{p, "why " + why}
	}
	if why := badText(rr.Rule, expr.MaxBytes); why != "" {
		return nil, &Error{p, "rule " + why}
	}
	if strings.Contains(rr.Rule, "//") || strings.Contains(rr.Rule, "/*") {
		return nil, &Error{p, fmt.Sprintf("rule %q: comments are not allowed in rules", rr.Rule)}
	}
	e, err := expr.Parse(rr.Rule, decl)
	if err != nil {
		var ee *expr.Error
		if errors.As(err, &ee) {
			// Point into the rule text: the rule is a plain or quoted scalar on one line.
			col := p.Col + ee.Col - 1
			if p.Line > 0 && l.quotedAt(p) {
				col++
			}
			return nil, &Error{Pos{p.File, p.Line, col}, fmt.Sprintf("rule %q: %s", rr.Rule, ee.Msg)}
		}
		return nil, &Error{p, err.Error()}
	}
	return &Rule{Expr: e, Why: rr.Why, Pos: p}, nil
}

// quotedAt reports whether the scalar at p starts with a quote.
func (l *loader) quotedAt(p Pos) bool {
	for name, data := range l.files {
		if l.display(name) != p.File {
			continue
		}
		lines := strings.Split(string(data), "\n")
		if p.Line-1 < len(lines) {
			ln := lines[p.Line-1]
			if p.Col-1 < len(ln) {
				return ln[p.Col-1] == '"' || ln[p.Col-1] == '\''
			}
		}
	}
	return false
}

func (l *loader) arch(s *Spec, name string) (*Arch, error) {
	var ra rawArch
	if err := l.read(name, &ra); err != nil {
		return nil, err
	}
	at := func(build func(*yaml.PathBuilder) *yaml.PathBuilder) Pos { return l.pos(name, build) }
	key := func(k string) Pos {
		return at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child(k) })
	}
	a := &Arch{Name: ra.Arch, Backend: ra.Backend, Doc: ra.Doc, Wave: ra.Wave, ComputeUnits: ra.ComputeUnits,
		SharedMemory: ra.SharedMemory, File: l.display(name), Pos: key("arch")}
	if ra.Doc != "" {
		if why := badText(ra.Doc, MaxDocBytes); why != "" {
			return nil, &Error{key("doc"), "doc " + why}
		}
	}
	if !identRe.MatchString(ra.Arch) {
		return nil, &Error{key("arch"), fmt.Sprintf("arch %q: want a lower-case identifier matching %s (e.g. gfx1200, nvidia)", ra.Arch, identRe)}
	}
	if stem := strings.TrimSuffix(path.Base(name), ".yaml"); stem != ra.Arch {
		return nil, &Error{key("arch"), fmt.Sprintf("arch %q is in file %s: name the file %s.yaml", ra.Arch, path.Base(name), ra.Arch)}
	}
	if ra.Backend != BackendHIP && ra.Backend != BackendVulkan {
		return nil, &Error{key("backend"), fmt.Sprintf("backend %q; allowed: hip, vulkan", ra.Backend)}
	}
	switch {
	case ra.Backend == BackendHIP && ra.Target == "":
		a.Target = "amdgcn"
	case ra.Backend == BackendHIP && (ra.Target == "amdgcn" || ra.Target == "cuda"):
		a.Target = ra.Target
	case ra.Backend == BackendHIP:
		return nil, &Error{key("target"), fmt.Sprintf("target %q; allowed for hip: amdgcn (default), cuda", ra.Target)}
	case ra.Target != "":
		return nil, &Error{key("target"), "target is for hip archs; a vulkan device class has none"}
	}
	idot, err := intDot(ra.Backend, a.Target, ra.IntDot, key("int_dot"))
	if err != nil {
		return nil, err
	}
	a.IntDot = idot
	cm, err := coopmat(ra.Backend, ra.Coopmat, key("coopmat"))
	if err != nil {
		return nil, err
	}
	a.Coopmat = cm
	if ra.Backend == BackendHIP {
		re, like := amdgcnRe, "gfx1200 or gfx90a"
		if a.Target == "cuda" {
			re, like = cudaRe, "sm90"
		}
		if !re.MatchString(ra.Arch) {
			return nil, &Error{key("arch"), fmt.Sprintf("arch %q: a hip arch for target %s is named like %s (the name is the compiler's offload arch)", ra.Arch, a.Target, like)}
		}
	}
	if ra.Wave != 8 && ra.Wave != 16 && ra.Wave != 32 && ra.Wave != 64 {
		return nil, &Error{key("wave"), fmt.Sprintf("wave %d; allowed: 8, 16, 32, 64", ra.Wave)}
	}
	if ra.ComputeUnits < 1 || ra.ComputeUnits > 4096 {
		return nil, &Error{key("compute_units"), fmt.Sprintf("compute_units %d; allowed: 1..4096", ra.ComputeUnits)}
	}
	if ra.SharedMemory < 4096 || ra.SharedMemory > 1<<20 {
		return nil, &Error{key("shared_memory"), fmt.Sprintf("shared_memory %d; allowed: 4096..1048576 bytes", ra.SharedMemory)}
	}
	if len(ra.Dtypes) == 0 {
		return nil, &Error{key("arch"), "no dtypes: list the dtypes this arch supports"}
	}
	for i, d := range ra.Dtypes {
		if s.Dtypes[d] == nil {
			return nil, &Error{at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("dtypes").Index(uint(i)) }), fmt.Sprintf("unknown dtype %q; allowed: %s", d, strings.Join(sortedKeys(s.Dtypes), ", "))}
		}
	}
	a.Dtypes = ra.Dtypes
	if ra.Backend == BackendVulkan {
		if ra.Match == nil || (ra.Match.VendorID == 0 && ra.Match.DriverName == "") {
			return nil, &Error{key("arch"), "a vulkan device class needs match: {vendor_id: ..., driver_name: ...}"}
		}
		if ra.Match.DriverName != "" && !identRe.MatchString(ra.Match.DriverName) {
			return nil, &Error{key("match"), fmt.Sprintf("match.driver_name %q: want a lower-case identifier", ra.Match.DriverName)}
		}
		a.Match = &Match{VendorID: ra.Match.VendorID, DriverName: ra.Match.DriverName}
		a.MatchPos = key("match")
	} else if ra.Match != nil {
		return nil, &Error{key("match"), "match is for vulkan device classes; a hip arch is named by its arch"}
	}
	a.Emit = map[string]map[string][]string{}
	for _, fam := range sortedKeys(ra.Emit) {
		f := s.Family(fam)
		epos := at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("emit").Child(fam) })
		if f == nil {
			return nil, &Error{epos, fmt.Sprintf("emit names unknown family %q; allowed: %s", fam, familyNames(s))}
		}
		a.Emit[fam] = map[string][]string{}
		for _, axName := range sortedKeys(ra.Emit[fam]) {
			ax := f.Axis(axName)
			if ax == nil {
				return nil, &Error{epos, fmt.Sprintf("emit.%s names unknown axis %q; allowed: %s", fam, axName, axisNames(f))}
			}
			for i, rv := range ra.Emit[fam][axName] {
				v, _, err := scalar(rv)
				if err != nil || !contains(ax.Values, v) {
					return nil, &Error{at(func(b *yaml.PathBuilder) *yaml.PathBuilder {
						return b.Child("emit").Child(fam).Child(axName).Index(uint(i))
					}),
						fmt.Sprintf("emit.%s.%s value %s; allowed: %s", fam, axName, show(rv), strings.Join(ax.Values, ", "))}
				}
				a.Emit[fam][axName] = append(a.Emit[fam][axName], v)
			}
		}
	}
	if err := l.model(s, a, ra.Model, at); err != nil {
		return nil, err
	}
	if len(ra.Prefer) > 0 {
		a.Prefer = map[string][]*Rule{}
	}
	for _, fam := range sortedKeys(ra.Prefer) {
		f := s.Family(fam)
		if f == nil {
			return nil, &Error{at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("prefer").Child(fam) }), fmt.Sprintf("prefer names unknown family %q; allowed: %s", fam, familyNames(s))}
		}
		names := map[string]bool{}
		for _, ax := range f.Axes {
			names[ax.Name] = true
			for _, d := range ax.Derive {
				for k := range d {
					names[k] = true
				}
			}
		}
		for _, k := range append(append([]string{}, OpNames...), ArchNames...) {
			names[k] = true
		}
		for _, c := range a.Model {
			names[c.Name] = true
		}
		if len(ra.Prefer[fam]) > MaxPreferKeys {
			return nil, &Error{at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("prefer").Child(fam) }), fmt.Sprintf("%d prefer keys for %s; at most %d", len(ra.Prefer[fam]), fam, MaxPreferKeys)}
		}
		for i, rr := range ra.Prefer[fam] {
			r, err := l.rule(rr, expr.Decl{Names: names, Funcs: dtypeFuncNames(), Values: stringValues(f)},
				at(func(b *yaml.PathBuilder) *yaml.PathBuilder {
					return b.Child("prefer").Child(fam).Index(uint(i)).Child("rule")
				}))
			if err != nil {
				return nil, err
			}
			a.Prefer[fam] = append(a.Prefer[fam], r)
		}
	}
	return a, nil
}

// MaxModelConsts bounds an arch's model constants; MaxModelValue their
// magnitude (a predicted time in picoseconds of a 2^40-byte read stays far
// from int64 overflow).
const (
	MaxModelConsts = 96
	MaxModelValue  = 1 << 40
)

// model validates an arch's model constants: named integers its prefer
// keys may use (a predicted time, lower wins), fitted offline by
// `benchreport -fit`. A name must not be one rules already know (op, arch
// facts, builtins, dtype functions, any family's parameters).
func (l *loader) model(s *Spec, a *Arch, raw map[string]int64, at func(func(*yaml.PathBuilder) *yaml.PathBuilder) Pos) error {
	if len(raw) == 0 {
		return nil
	}
	mpos := at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("model") })
	if len(raw) > MaxModelConsts {
		return &Error{mpos, fmt.Sprintf("%d model constants; at most %d", len(raw), MaxModelConsts)}
	}
	taken := map[string]string{}
	for _, k := range OpNames {
		taken[k] = "an op field"
	}
	for _, k := range append(append([]string{}, ArchNames...), BuildArchNames...) {
		taken[k] = "an arch fact"
	}
	for _, k := range append(append([]string{}, expr.Builtins...), expr.DtypeFuncNames...) {
		taken[k] = "a function"
	}
	for _, k := range append(append([]string{"native", "grid_x"}, VerifyNames...), "lanes") {
		if _, ok := taken[k]; !ok {
			taken[k] = "a name launch contracts use"
		}
	}
	for _, f := range s.Families {
		for _, ax := range f.Axes {
			if _, ok := taken[ax.Name]; !ok {
				taken[ax.Name] = "a parameter of family " + f.Name
			}
			for _, d := range ax.Derive {
				for k := range d {
					if _, ok := taken[k]; !ok {
						taken[k] = "a parameter of family " + f.Name
					}
				}
			}
		}
	}
	for _, name := range sortedKeys(raw) {
		p := at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("model").Child(name) })
		if !identRe.MatchString(name) {
			return &Error{p, fmt.Sprintf("model constant %q: want a lower-case identifier matching %s", name, identRe)}
		}
		if what, ok := taken[name]; ok {
			return &Error{p, fmt.Sprintf("model constant %q has the name of %s; pick another name", name, what)}
		}
		if v := raw[name]; v < 0 || v > MaxModelValue {
			return &Error{p, fmt.Sprintf("model constant %s = %d; allowed: 0..%d (integers: nanoseconds, bytes per microsecond, ...)", name, v, int64(MaxModelValue))}
		}
		a.Model = append(a.Model, &ModelConst{Name: name, Value: raw[name], Pos: p})
	}
	return nil
}

// maxVariants sets f.MaxVariants from the family's max_variants key.
func maxVariants(f *Family, rf *rawFamily, at func(func(*yaml.PathBuilder) *yaml.PathBuilder) Pos) error {
	f.MaxVariants = DefaultMaxVariants
	if rf == nil || rf.MaxVariants == nil {
		return nil
	}
	f.MaxVariantsPos = at(func(b *yaml.PathBuilder) *yaml.PathBuilder { return b.Child("max_variants") })
	if n := *rf.MaxVariants; n < 1 || n > MaxCombinations {
		return &Error{f.MaxVariantsPos, fmt.Sprintf("max_variants %d; allowed: 1..%d", n, MaxCombinations)}
	}
	f.MaxVariants = *rf.MaxVariants
	return nil
}

// stringValues maps each of the family's parameters (axes and derived)
// that takes a string value to every value it takes, in spec order: a rule
// comparing it with any other string is refused (see expr.Decl.Values).
func stringValues(f *Family) map[string][]string {
	all := map[string][]string{}
	add := func(k, v string) {
		if !contains(all[k], v) {
			all[k] = append(all[k], v)
		}
	}
	for _, ax := range f.Axes {
		for _, v := range ax.Values {
			add(ax.Name, v)
			for _, k := range sortedKeys(ax.Derive[v]) {
				add(k, ax.Derive[v][k])
			}
		}
	}
	out := map[string][]string{}
	for k, vs := range all {
		for _, v := range vs {
			if !digitsRe.MatchString(v) {
				out[k] = vs
				break
			}
		}
	}
	return out
}

func scalar(v any) (string, bool, error) {
	switch x := v.(type) {
	case uint64:
		return strconv.FormatUint(x, 10), true, nil
	case int64:
		return strconv.FormatInt(x, 10), true, nil
	case int:
		return strconv.Itoa(x), true, nil
	case string:
		return x, false, nil
	}
	return "", false, fmt.Errorf("not a scalar")
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func familyNames(s *Spec) string {
	var n []string
	for _, f := range s.Families {
		n = append(n, f.Name)
	}
	return strings.Join(n, ", ")
}

func axisNames(f *Family) string {
	var n []string
	for _, a := range f.Axes {
		n = append(n, a.Name)
	}
	return strings.Join(n, ", ")
}
