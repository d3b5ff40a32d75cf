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
}
