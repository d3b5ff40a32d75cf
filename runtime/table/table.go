// Package table defines the rows of kgen's generated variant table
// (generated.Variants) and the launch contracts of its families, and reads
// them. The table itself is written by gen/emit; this package only holds its
// types.
package table

import "strconv"

// Variant is one generated kernel variant.
type Variant struct {
	Name    string // procedural name: kernel symbol, file stem, key within Arch
	Family  string
	Backend string // "hip" or "vulkan"
	Arch    string // HIP arch (gfx1200) or Vulkan device class (nvidia)
	// Params holds every axis value and derived parameter, typed, in spec
	// order (axes, then derived parameters by name). Parsed once, by gen.
	Params []Param
	// Spec holds the Vulkan specialization constants; empty for HIP.
	Spec []SpecConst
	// Artifact is the file holding the variant: a .spv blob for Vulkan, a
	// .hip source for HIP (one entry of generated.Artifacts).
	Artifact *Artifact
}

// Param is one parameter of a variant: an integer, or (when S is set) a
// name.
type Param struct {
	N string // parameter name
	S string // value, when it is a name
	I int64  // value, when it is an integer
}

// IsStr reports whether the value is a name.
func (p Param) IsStr() bool { return p.S != "" }

// Value is the value as text.
func (p Param) Value() string {
	if p.S != "" {
		return p.S
	}
	return strconv.FormatInt(p.I, 10)
}

// Artifact is one generated file variants live in.
type Artifact struct {
	Path   string // relative to generated/
	SHA256 string // of its bytes
}

// Key is backend/arch/name, unique in the table.
func (v *Variant) Key() string { return v.Backend + "/" + v.Arch + "/" + v.Name }

// Lookup returns a parameter (false when the variant has none of that name).
func (v *Variant) Lookup(name string) (Param, bool) {
	for _, p := range v.Params {
		if p.N == name {
			return p, true
		}
	}
	return Param{}, false
}

// Param returns one parameter's value as text ("" when absent).
func (v *Variant) Param(name string) string {
	p, ok := v.Lookup(name)
	if !ok {
		return ""
	}
	return p.Value()
}

// IntParam returns an integer parameter (0 when absent or a name).
func (v *Variant) IntParam(name string) int {
	p, _ := v.Lookup(name)
	return int(p.I)
}

// ParamMap returns the parameters as text, by name.
func (v *Variant) ParamMap() map[string]string {
	m := make(map[string]string, len(v.Params))
	for _, p := range v.Params {
		m[p.N] = p.Value()
	}
	return m
}

// ParamString is the parameters as space-separated name=value pairs, in
// order (for messages).
func (v *Variant) ParamString() string {
	var b []byte
	for i, p := range v.Params {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, p.N...)
		b = append(b, '=')
		b = append(b, p.Value()...)
	}
	return string(b)
}

// SpecConst is a Vulkan specialization constant binding.
type SpecConst struct {
	ID    uint32
	Param string
	Value uint32
}

// Rule is a selection rule from the spec: an expression (runtime/expr) and
// why it holds.
type Rule struct {
	Expr string
	Why  string
}

// Family holds a family's rules and launch contract, copied from
// templates/kernels.yaml.
type Family struct {
	Name string
	// Outside: when all hold the family can serve the op at all; when one
	// fails, the op belongs elsewhere (e.g. the GEMM path).
	Outside []Rule
	// Eligible: a variant failing one is excluded, with its Why.
	Eligible []Rule
	// Prefer: sort keys, lower wins, earlier first.
	Prefer []Rule
	// Launch is how a host sizes, binds and launches the family's kernels.
	Launch Launch
	// Verify is how the family's kernels are checked against runtime/ref.
	Verify Verify
	// Baseline is a condition over a variant's parameters marking the one
	// `gen bench` measures the others against ("" : none).
	Baseline string
	// FedBy lists the in buffers another family's launch writes, in buffer
	// order (runtime.SelectChain plans both launches).
	FedBy []Feed
}

// Let is a named value computed in order before what uses it.
type Let struct {
	Name string
	Expr string
}

// Launch is a family's launch contract. Every expression is over the op
// (m, n, k), the variant's parameters, the device facts (wave,
// compute_units, shared_memory) and the lets before it.
type Launch struct {
	Let []Let
	// Workgroup is the lanes per workgroup; WorkgroupParam names the Vulkan
	// specialization constant that receives it.
	Workgroup      string
	WorkgroupParam string
	// Grid is the workgroup count per dimension (x, y, z). When Groups is
	// set instead, it is a linear count the runtime folds into x and y
	// (x <= 65535); the kernels recover their number as y * grid_x + x and
	// skip numbers past the count.
	Grid   [3]string
	Groups string
	// Buffers in binding order (Vulkan) and pointer order (HIP).
	Buffers []Buffer
	// Args are 32-bit launch arguments in order: push constants on Vulkan,
	// kernel arguments after the buffer pointers on HIP. grid_x (the folded
	// x count) may appear in them.
	Args []Arg
}

// Buffer is one buffer of a launch.
type Buffer struct {
	Name string
	Dir  string // in, out or scratch
	// Elem is the element type: weight or act (the dtype's), f32, u32, or
	// a block format's name (q8k, q8_1).
	Elem  string
	Bytes string // size in bytes
	// Align is the element alignment of the buffer's offset ("" : none).
	Align string
	// Zero: the buffer must hold zeros before the first launch (the kernels
	// leave it zero after each).
	Zero bool
}

// Arg is one launch argument.
type Arg struct {
	Name    string
	Expr    string
	Backend string // "" for both, else hip or vulkan only
}

// Verify says how a family's kernels are checked.
type Verify struct {
	// Reference names the CPU reference in runtime/ref that makes inputs
	// and expected outputs.
	Reference string
	// Compare is "relative" (L2 error relative to the reference's
	// magnitudes, bound Ulps * 2^-24 * sqrt(Terms + 1)) or "exact" (byte
	// for byte, Guard bytes after the output left poisoned).
	Compare string
	Poison  uint32 // 32-bit pattern outputs are filled with first
	Ulps    int
	Terms   string
	Guard   int
	Let     []Let
	Cases   []Case
}

// Case is one verification shape; with MTo set it repeats for every m from
// M to MTo. When is a condition (over the variant, the device and native:
// 1 when the variant belongs to the device's own arch or class).
type Case struct {
	M, MTo, N, K string
	When         string
}

// Arch is a HIP arch or Vulkan device class, copied from templates/archs.
type Arch struct {
	Name         string
	Backend      string
	Doc          string
	Wave         int
	ComputeUnits int
	SharedMemory int
	// Vulkan device classes match a device by vendor id and/or driver name.
	VendorID   uint32
	DriverName string
	// Prefer keys per family, applied before the family's own.
	Prefer []FamilyRules
	// Model holds the arch's model constants (templates/archs model:), by
	// name: integers its prefer keys use by name.
	Model []Const
}

// Const is a named integer (an arch's model constant).
type Const struct {
	Name  string
	Value int64
}

// FamilyRules are an arch's rules for one family.
type FamilyRules struct {
	Family string
	Rules  []Rule
}

// Dtype is a weight/activation type pair.
type Dtype struct {
	Name        string
	Weight      string
	Act         string
	WeightBytes int
	ActBytes    int
	Scaled      bool
	// WeightBlock and ActBlock: elements per block of a block format
	// (WeightBytes/ActBytes are then per block); 0 for element types.
	WeightBlock int
	ActBlock    int
}
