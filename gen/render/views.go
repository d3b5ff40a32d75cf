package render

import (
	"fmt"
	"strconv"

	"github.com/kgen-dev/kgen/gen/expand"
	"github.com/kgen-dev/kgen/gen/spec"
)

// HIPFile is the data of a HIP template: one family on one arch.
type HIPFile struct {
	Family   *spec.Family
	Arch     *spec.Arch
	Variants []*HIPKernel
}

// HIPKernel is one extern "C" kernel of a HIP file.
type HIPKernel struct {
	Name       string
	Params     map[string]string
	WG         int    // workgroup size: rows * wave for the subgroup layout
	WEnum      string // KG_F32, KG_F16, KG_BF16, KG_E4M3
	XEnum      string
	LayoutEnum string
	Scaled     bool
}

// P returns a parameter's value.
func (k *HIPKernel) P(name string) (string, error) {
	v, ok := k.Params[name]
	if !ok {
		return "", fmt.Errorf("variant %s has no parameter %q", k.Name, name)
	}
	return v, nil
}

var typeEnum = map[string]string{"f32": "KG_F32", "f16": "KG_F16", "bf16": "KG_BF16", "e4m3": "KG_E4M3"}
var layoutEnum = map[string]string{"subgroup": "KG_SUBGROUP", "workgroup": "KG_WORKGROUP", "splitk": "KG_SPLITK", "mma": "KG_MMA", "thread": "KG_THREAD"}

// WorkgroupSize is a variant's workgroup size on a device whose subgroup
// (wave) has the given size: the subgroup layout uses `waves` subgroups when
// the family has that parameter (the quantizers), else `rows` (GEMV: one
// subgroup per row).
func WorkgroupSize(params map[string]string, subgroup int) int {
	wg, _ := strconv.Atoi(params["wg"])
	if params["layout"] == "subgroup" || wg == 0 {
		n, _ := strconv.Atoi(params["rows"])
		if w, _ := strconv.Atoi(params["waves"]); w > 0 {
			n = w
		}
		return n * subgroup
	}
	return wg
}

func newHIPKernel(s *spec.Spec, v *expand.Variant) *HIPKernel {
	d := s.Dtypes[v.Params["dtype"]]
	return &HIPKernel{
		Name: v.Name, Params: v.Params, WG: WorkgroupSize(v.Params, v.Arch.Wave),
		WEnum: typeEnum[d.Weight], XEnum: typeEnum[d.Act], LayoutEnum: layoutEnum[v.Params["layout"]], Scaled: d.Scaled,
	}
}

// GLSLBlob is the data of a GLSL template: one SPIR-V blob.
type GLSLBlob struct {
	Name        string
	Family      *spec.Family
	Params      map[string]string // baked parameters only
	SpecConsts  []SpecConst
	WGConstID   uint32
	WType       string // element type of W: f32, f16, bf16, e4m3
	XType       string
	WeightBytes int
	ActBytes    int
	Scaled      bool
	// Load units (families with a pack parameter): the GLSL type holding
	// pack elements, its size in bytes and the expression widening a loaded
	// value v to uvec4.
	WUnit, XUnit           string
	WUnitBytes, XUnitBytes int
	WWiden, XWiden         string
}

// SpecConst is a specialization constant declaration.
type SpecConst struct {
	ID      uint32
	Param   string
	Default uint32
}

// P returns a baked parameter's value.
func (b *GLSLBlob) P(name string) (string, error) {
	v, ok := b.Params[name]
	if !ok {
		return "", fmt.Errorf("blob %s: %q is not baked into the blob (baked: %v)", b.Name, name, b.Family.VulkanBaked)
	}
	return v, nil
}

func unit(bytes int) (typ, widen string) {
	switch bytes {
	case 16:
		return "uvec4", "v"
	case 8:
		return "uvec2", "uvec4(v, 0u, 0u)"
	case 4:
		return "uint", "uvec4(v, 0u, 0u, 0u)"
	}
	return "uint", ""
}

func newGLSLBlob(s *spec.Spec, v *expand.Variant) (*GLSLBlob, error) {
	d := s.Dtypes[v.Params["dtype"]]
	b := &GLSLBlob{Name: v.Blob, Family: v.Family, Params: map[string]string{}, WType: d.Weight, XType: d.Act,
		WeightBytes: d.WeightBytes, ActBytes: d.ActBytes, Scaled: d.Scaled}
	for _, p := range v.Family.VulkanBaked {
		b.Params[p] = v.Params[p]
	}
	wgID := uint32(0)
	found := false
	for _, sc := range v.Family.VulkanSpecialization {
		def := uint32(1)
		if sc.Param == "wg" {
			def, wgID, found = 64, sc.ID, true
		}
		b.SpecConsts = append(b.SpecConsts, SpecConst{ID: sc.ID, Param: sc.Param, Default: def})
	}
	if !found {
		return nil, fmt.Errorf("family %s: vulkan.specialization must bind wg (the workgroup size)", v.Family.Name)
	}
	b.WGConstID = wgID
	if _, ok := v.Params["pack"]; ok {
		pack := v.Int("pack")
		b.WUnitBytes, b.XUnitBytes = pack*d.WeightBytes, pack*d.ActBytes
		b.WUnit, b.WWiden = unit(b.WUnitBytes)
		b.XUnit, b.XWiden = unit(b.XUnitBytes)
	}
	return b, nil
}
