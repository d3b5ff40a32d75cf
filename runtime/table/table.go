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
