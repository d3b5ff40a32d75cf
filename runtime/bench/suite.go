package bench

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/kgen-dev/kgen/generated"
	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/expr"
)

// Kind is the suite a family is benchmarked over, decided by its launch
// contract.
type Kind int

const (
	// Models: m x n x k ops, a decode-shapes.yaml suite (models, layers,
	// token counts; Suite); each case records a Result.
	Models Kind = iota
	// Rows: rows x k ops (n = 1), a quant-shapes.yaml suite (QuantSuite),
	// for families whose launch contract never reads n; each case records
	// a QuantResult.
	Rows
)

func (k Kind) String() string {
	if k == Rows {
		return "rows x k"
	}
	return "m x n x k"
}

// KindOf is the suite kind of a family of the table: Rows when no
// expression of its launch contract (lets, workgroup, grid, buffers,
// arguments) reads the op's n, else Models.
func KindOf(family string) (Kind, error) {
	fam, err := kruntime.Contract(family)
	if err != nil {
		return 0, fmt.Errorf("%w (families: %s)", err, strings.Join(Families(), ", "))
	}
	l := fam.Launch
	srcs := []string{l.Workgroup, l.Groups, l.Grid[0], l.Grid[1], l.Grid[2]}
	for _, lt := range l.Let {
		srcs = append(srcs, lt.Expr)
	}
	for _, b := range l.Buffers {
		srcs = append(srcs, b.Bytes, b.Align)
	}
	for _, a := range l.Args {
		srcs = append(srcs, a.Expr)
	}
	for _, src := range srcs {
		if src == "" {
			continue
		}
		e, err := expr.ParseTrusted(src)
		if err != nil {
			return 0, fmt.Errorf("family %s: launch contract: %w", family, err)
		}
		for _, name := range e.Names() {
			if name == "n" {
				return Models, nil
			}
		}
	}
	return Rows, nil
}

// Families lists the families of the table, in table order.
func Families() []string {
	var out []string
	for _, f := range generated.Families {
		out = append(out, f.Name)
	}
	return out
}

// FamilyDtypes lists the dtypes a family has variants of, in table order.
func FamilyDtypes(family string) []string {
	var out []string
	seen := map[string]bool{}
	for i := range generated.Variants {
		v := &generated.Variants[i]
		if d := v.Param("dtype"); v.Family == family && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// hasDtype reports whether family has variants of dtype.
func hasDtype(family, dtype string) bool {
	for _, d := range FamilyDtypes(family) {
		if d == dtype {
			return true
		}
	}
	return false
}

// Suite is a decode-shapes.yaml file.
type Suite struct {
	Tokens []int                                    `yaml:"tokens"`
	Models map[string]map[string]struct{ N, K int } `yaml:"models"`
	Quant  map[string]struct{ Rows, K int }         `yaml:"quant"`
}

// Case is one shape of a model suite to time.
type Case struct {
	Family       string `json:",omitempty"` // empty in files from before it was recorded: the dense GEMV family
	Model, Layer string
	N, K, M      int
	Dtype        string
}

// Op is the case's op.
func (c Case) Op() kruntime.Op {
	return kruntime.Op{Family: c.Family, Dtype: c.Dtype, M: c.M, N: c.N, K: c.K}
}

// LoadSuite reads a shape file.
func LoadSuite(path string) (*Suite, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Suite
	if err := yaml.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// Cases expands the suite: families, then models and layers (sorted), then
// dtypes (those the family has), then token counts.
func (s *Suite) Cases(families, dtypes []string) []Case {
	var out []Case
	models := make([]string, 0, len(s.Models))
	for m := range s.Models {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, f := range families {
		for _, m := range models {
			layers := make([]string, 0)
			for l := range s.Models[m] {
				layers = append(layers, l)
			}
			sort.Strings(layers)
			for _, l := range layers {
				sh := s.Models[m][l]
				for _, d := range dtypes {
					if !hasDtype(f, d) {
						continue
					}
					for _, t := range s.Tokens {
						out = append(out, Case{Family: f, Model: m, Layer: l, N: sh.N, K: sh.K, M: t, Dtype: d})
					}
				}
			}
		}
	}
	return out
}

// QuantSuite is a quant-shapes.yaml file (bench/quant-shapes.yaml), the
// suite of Rows families: every pair of rows (the op's m: tokens, or
// tokens x top_k for MoE) and k (elements per row) is a case, for each
// family and dtype.
type QuantSuite struct {
	Rows []int `yaml:"rows"`
	K    []int `yaml:"k"`
}

// LoadQuantSuite reads a rows x k shape file; unknown keys, and empty or
// non-positive lists, are errors.
func LoadQuantSuite(path string) (*QuantSuite, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s QuantSuite
	if err := yaml.UnmarshalWithOptions(b, &s, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for name, l := range map[string][]int{"rows": s.Rows, "k": s.K} {
		if len(l) == 0 {
			return nil, fmt.Errorf("%s: %s: give at least one value", path, name)
		}
		for _, v := range l {
			if v < 1 {
				return nil, fmt.Errorf("%s: %s: %d is not positive", path, name, v)
			}
		}
	}
	return &s, nil
}

// QuantCase is one rows x k shape to time.
type QuantCase struct {
	Family string `json:"family"`
	Rows   int    `json:"rows"`
	K      int    `json:"k"`
	Dtype  string `json:"dtype"`
}

// Op is the case's op (n = 1: Rows families do not read it).
func (c QuantCase) Op() kruntime.Op {
	return kruntime.Op{Family: c.Family, Dtype: c.Dtype, M: c.Rows, N: 1, K: c.K}
}

// Cases expands the suite: families, then dtypes (those the family has),
// then k, then rows.
func (s *QuantSuite) Cases(families, dtypes []string) []QuantCase {
	var out []QuantCase
	for _, f := range families {
		for _, d := range dtypes {
			if !hasDtype(f, d) {
				continue
			}
			for _, k := range s.K {
				for _, r := range s.Rows {
					out = append(out, QuantCase{Family: f, Rows: r, K: k, Dtype: d})
				}
			}
		}
	}
	return out
}
