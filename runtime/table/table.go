// Package table defines the rows of kgen's generated variant table
// (generated.Variants) and reads them. The table itself is written by
// gen/emit; this package only holds its types.
package table

import (
	"strconv"
	"strings"
)

// Variant is one generated kernel variant.
type Variant struct {
	Name    string // procedural name: kernel symbol, file stem, key within Arch
	Family  string
	Backend string // "hip" or "vulkan"
	Arch    string // HIP arch (gfx1200) or Vulkan device class (nvidia)
	// Params holds every axis value and derived parameter as
	// space-separated name=value pairs in spec order.
	Params string
	// Spec holds the Vulkan specialization constants as id:name=value
	// pairs; empty for HIP.
	Spec string
	// Artifact is the file (relative to generated/) holding the variant:
	// a .spv blob for Vulkan, a .hip source for HIP.
	Artifact string
	SHA256   string // of the artifact's bytes
}

// Key is backend/arch/name, unique in the table.
func (v *Variant) Key() string { return v.Backend + "/" + v.Arch + "/" + v.Name }

// ParamMap parses Params.
func (v *Variant) ParamMap() map[string]string {
	m := map[string]string{}
	for _, kv := range strings.Fields(v.Params) {
		k, val, _ := strings.Cut(kv, "=")
		m[k] = val
	}
	return m
}

// Param returns one parameter's value ("" when absent).
func (v *Variant) Param(name string) string {
	for _, kv := range strings.Fields(v.Params) {
		if k, val, _ := strings.Cut(kv, "="); k == name {
			return val
		}
	}
	return ""
}

// IntParam returns an integer parameter (0 when absent or not a number).
func (v *Variant) IntParam(name string) int {
	i, _ := strconv.Atoi(v.Param(name))
	return i
}

// SpecConst is a Vulkan specialization constant binding.
type SpecConst struct {
	ID    uint32
	Param string
	Value uint32
}

// SpecConsts parses Spec.
func (v *Variant) SpecConsts() []SpecConst {
	var out []SpecConst
	for _, f := range strings.Fields(v.Spec) {
		id, rest, _ := strings.Cut(f, ":")
		name, val, _ := strings.Cut(rest, "=")
		i, _ := strconv.ParseUint(id, 10, 32)
		n, _ := strconv.ParseUint(val, 10, 32)
		out = append(out, SpecConst{ID: uint32(i), Param: name, Value: uint32(n)})
	}
	return out
}

// Rule is a selection rule from the spec: an expression (runtime/expr) and
// why it holds.
type Rule struct {
	Expr string
	Why  string
}

// Family holds a family's selection rules, copied from templates/kernels.yaml.
type Family struct {
	Name string
	// Outside: when all hold the family can serve the op at all; when one
	// fails, the op belongs elsewhere (e.g. the GEMM path).
	Outside []Rule
	// Eligible: a variant failing one is excluded, with its Why.
	Eligible []Rule
	// Prefer: sort keys, lower wins, earlier first.
	Prefer []Rule
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
}
