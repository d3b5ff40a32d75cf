// Package spec loads and validates kgen's spec files: the kernel spec
// (templates/kernels.yaml: dtypes, families, axes, constraints, selection
// rules) and one file per arch or device class (templates/archs/*.yaml).
//
// Every error names file:line:col, the offending value and what is allowed.
package spec

import (
	"strconv"

	"github.com/kgen-dev/kgen/runtime/expr"
)

// Backends kgen emits for.
const (
	BackendHIP    = "hip"
	BackendVulkan = "vulkan"
)

// Spec is everything the generator reads, validated.
type Spec struct {
	Dtypes   map[string]*Dtype
	Families []*Family // sorted by name
	Archs    []*Arch   // sorted by backend, then name
	// Files are the spec files read, by path relative to the templates root,
	// with their bytes: kernels.yaml is an input of every rendered source, an
	// arch file of its own HIP sources (render.Source.InputsHash).
	Files map[string][]byte
}

// Dtype is the weight/activation type pair of a kernel.
type Dtype struct {
	Name        string
	Weight      string `yaml:"weight"`       // f32, f16, bf16, e4m3, or a block format (BlockTypes)
	Act         string `yaml:"act"`          // f32, f16, bf16, or a block format
	WeightBytes int    `yaml:"weight_bytes"` // bytes per weight element (block formats: per block)
	ActBytes    int    `yaml:"act_bytes"`    // bytes per activation element (block formats: per block)
	Scaled      bool   `yaml:"scaled"`       // one f32 scale per output row
	// WeightBlock and ActBlock are the elements per block of a block
	// format (ggml's Q4_K: 256 in 144 bytes); 1 for element types.
	WeightBlock int `yaml:"weight_block"`
	ActBlock    int `yaml:"act_block"`
}

// Family is one kernel family (e.g. gemv).
type Family struct {
	Name        string
	Doc         string
	Templates   map[string]string // backend -> template path under templates/
	Axes        []*Axis
	Constraints []*Rule
	// Vulkan says which parameters are baked into a SPIR-V blob; all others
	// that appear in Specialization are bound at pipeline creation.
	VulkanBaked          []string
	VulkanSpecialization []SpecConst
	Select               *Select
	// Launch is the family's launch contract; Verify how its kernels are
	// checked against runtime/ref (contract.go).
	Launch *Launch
	Verify *Verify
	// Baseline marks the variant `gen bench` measures the others against
	// (bench.baseline: a condition over the parameters), or nil.
	Baseline *Rule
	// FedBy lists the in buffers another family's launch writes (fed_by:
	// the producer and its op), in buffer order; empty for most families.
	FedBy []*Feed
	// MaxVariants bounds the variants the family may expand to on one arch
	// (DefaultMaxVariants unless the spec sets max_variants); MaxVariantsPos
	// is where the spec sets it (zero when it does not).
	MaxVariants    int
	MaxVariantsPos Pos
	Pos            Pos
}

// Axis is one dimension of a family's variant space.
type Axis struct {
	Name   string
	Prefix string   // name fragment before the value, e.g. "p" for pack
	Values []string // allowed values, in spec order
	Ints   bool     // all values are integers
	// Unnamed is the value left out of variant and blob names ("" when every
	// value is named), so an axis added to a family keeps its old names.
	Unnamed string
	// Derive gives extra parameters implied by each value (e.g. tile wg256 ->
	// layout workgroup, wg 256). Every value defines the same keys.
	Derive map[string]map[string]string
	Pos    Pos
}

// SpecConst binds a parameter to a Vulkan specialization constant id.
type SpecConst struct {
	Param string
	ID    uint32
}

// Rule is a validated expression with a human reason.
type Rule struct {
	Expr *expr.Expr
	Why  string
	Pos  Pos
}

// Select holds a family's selection rules: which variants may serve an op,
// and which of those is preferred.
type Select struct {
	// Eligible rules are evaluated over the op (m, n, k, align) and the
	// variant's parameters; a variant failing any is excluded with its Why.
	Eligible []*Rule
	// Prefer orders eligible variants: each key is an expression; lower
	// wins, earlier keys first. Arch files may prepend their own keys.
	Prefer []*Rule
	// Outside says when the family is not the right tool at all (e.g. m > 8:
	// use the GEMM path).
	Outside []*Rule
}

// Arch is one HIP arch or Vulkan device class.
type Arch struct {
	Name    string
	Backend string
	// Target is what a HIP source is built for: "amdgcn" (clang/hipcc,
	// the default) or "cuda" (nvcc through the portability header).
	Target string
	// IntDot is the arch's 4 x int8 dot-product instruction the HIP
	// sources use (IntDots): sdot4 (gfx9 dot1-insts), sudot4 (gfx11/gfx12
	// dot8-insts), dp4a (CUDA), or "" (none: plain integer math).
	IntDot string
	// Coopmat is the Vulkan device class's cooperative-matrix extension
	// the SPIR-V uses (Coopmats): nv (VK_NV_cooperative_matrix,
	// GL_NV_cooperative_matrix: fp16 A/B, fp32 accumulate), or "" (none).
	Coopmat      string
	Doc          string
	Wave         int // wave (HIP) or typical subgroup size (Vulkan)
	ComputeUnits int
	SharedMemory int
	Dtypes       []string
	// Emit restricts axis values per family: family -> axis -> values.
	Emit map[string]map[string][]string
	// Match identifies a Vulkan device as this class; MatchPos is where.
	Match    *Match
	MatchPos Pos
	// Prefer are arch-specific preference keys per family, applied before
	// the family's own.
	Prefer map[string][]*Rule
	// Model are the arch's model constants, by name: integers its prefer
	// keys may use by name (a predicted time's bandwidths and latencies),
	// fitted offline (`benchreport -fit`).
	Model []*ModelConst
	File  string
	Pos   Pos
}

// ModelConst is one named model constant of an arch.
type ModelConst struct {
	Name  string
	Value int64
	Pos   Pos
}

// ModelValue returns the arch's model constant of that name.
func (a *Arch) ModelValue(name string) (int64, bool) {
	for _, c := range a.Model {
		if c.Name == name {
			return c.Value, true
		}
	}
	return 0, false
}

// Match identifies Vulkan devices of a class.
type Match struct {
	VendorID   uint32
	DriverName string
}

// Pos is a position in a spec file.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// Family returns the family named name, or nil.
func (s *Spec) Family(name string) *Family {
	for _, f := range s.Families {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Arch returns the arch named name, or nil.
func (s *Spec) Arch(name string) *Arch {
	for _, a := range s.Archs {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Axis returns the family's axis named name, or nil.
func (f *Family) Axis(name string) *Axis {
	for _, a := range f.Axes {
		if a.Name == name {
			return a
		}
	}
	return nil
}
