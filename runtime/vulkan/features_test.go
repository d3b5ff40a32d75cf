package vulkan

import (
	"encoding/binary"
	"os"
	"slices"
	"testing"
)

// The OpSDot blobs declare DotProduct: MissingFeatures names
// shaderIntegerDotProduct on a device without it and nothing on one with it;
// a plain-int blob needs nothing.
func TestMissingFeatures(t *testing.T) {
	words := func(path string) []uint32 {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		w := make([]uint32, len(b)/4)
		for k := range w {
			w[k] = binary.LittleEndian.Uint32(b[4*k:])
		}
		return w
	}
	khr, plain := words("../../generated/spirv/mmvq_q4_k_workgroup_khr.spv"), words("../../generated/spirv/mmvq_q4_k_workgroup_int.spv")
	if got := MissingFeatures(DeviceInfo{}, khr); !slices.Contains(got, "shaderIntegerDotProduct") {
		t.Errorf("khr blob on a bare device: %v, want shaderIntegerDotProduct", got)
	}
	if got := MissingFeatures(DeviceInfo{IntegerDotProduct: true}, khr); len(got) != 0 {
		t.Errorf("khr blob on a device with integer dot products: %v, want none", got)
	}
	if got := MissingFeatures(DeviceInfo{}, plain); len(got) != 0 {
		t.Errorf("plain-int blob: %v, want none", got)
	}
	if got := LackedFeatures(DeviceInfo{IntegerDotProduct: true}); slices.Contains(got, "shaderIntegerDotProduct") {
		t.Errorf("LackedFeatures: %v", got)
	}
	// The cooperative-matrix gemv blobs declare CooperativeMatrixNV: they
	// need cooperativeMatrix (lavapipe has none), and the plain ones do not.
	cm, fma := words("../../generated/spirv/gemv_f16_p8_coopmat.spv"), words("../../generated/spirv/gemv_bf16_p8_workgroup.spv")
	if got := MissingFeatures(DeviceInfo{ShaderFloat16: true, ShaderInt16: true, Storage16Bit: true}, cm); !slices.Equal(got, []string{"cooperativeMatrix"}) {
		t.Errorf("coopmat blob on a device without cooperative matrices: %v, want [cooperativeMatrix]", got)
	}
	if got := MissingFeatures(DeviceInfo{ShaderFloat16: true, ShaderInt16: true, Storage16Bit: true, CooperativeMatrixNV: true}, cm); len(got) != 0 {
		t.Errorf("coopmat blob on a device with cooperative matrices: %v, want none", got)
	}
	if got := MissingFeatures(DeviceInfo{}, fma); slices.Contains(got, "cooperativeMatrix") {
		t.Errorf("FMA blob: %v", got)
	}
	if got := LackedFeatures(DeviceInfo{}); !slices.Contains(got, "cooperativeMatrix") {
		t.Errorf("LackedFeatures of a bare device: %v, want cooperativeMatrix among them", got)
	}
}
