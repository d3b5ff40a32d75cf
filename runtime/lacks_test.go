package runtime

import (
	"strings"
	"testing"

	"github.com/kgen-dev/kgen/generated"
)

// A device of a class with int_dot: khr that lacks shaderIntegerDotProduct
// (Device.Lacks, as VulkanDevice sets it) never gets an OpSDot variant; the
// same class with the feature prefers one.
func TestLacksExcludesBlobFeatures(t *testing.T) {
	dev, err := ArchDevice("nvidia")
	if err != nil {
		t.Fatal(err)
	}
	op := Op{Family: "mmvq", Dtype: "q4_k", M: 1, N: 4096, K: 14336}
	c, err := Select(dev, op)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(c.Variant.Name, "d") {
		t.Errorf("with the feature: %s, want an OpSDot (d) tile", c.Variant.Name)
	}
	dev.Lacks = "shaderIntegerDotProduct"
	c, err = Select(dev, op)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(c.Variant.Name, "d") {
		t.Errorf("without the feature: %s, want a plain-int tile", c.Variant.Name)
	}
}

// A device of the nvidia class without VK_NV_cooperative_matrix's feature
// (lavapipe's case too) is refused each cooperative-matrix gemv variant with
// the reason named, and selection never picks one.
func TestLacksCooperativeMatrix(t *testing.T) {
	dev, err := ArchDevice("nvidia")
	if err != nil {
		t.Fatal(err)
	}
	dev.Lacks = "cooperativeMatrix"
	n := 0
	for i := range generated.Variants {
		v := &generated.Variants[i]
		if v.Backend != "vulkan" || v.Arch != "nvidia" || !strings.Contains(v.Name, "_cm") {
			continue
		}
		n++
		err := CheckDevice(v, dev)
		if err == nil || !strings.Contains(err.Error(), "its SPIR-V needs cooperativeMatrix, which the device lacks") {
			t.Errorf("%s on a device lacking cooperativeMatrix: %v, want the reason", v.Name, err)
		}
	}
	if n != 4 {
		t.Errorf("%d cooperative-matrix gemv variants for nvidia, want 4 (f16 x cm128/cm256 x tokens 4/8)", n)
	}
	for _, m := range []int{4, 8} {
		c, err := Select(dev, Op{Family: "gemv", Dtype: "f16", M: m, N: 14336, K: 4096})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(c.Variant.Name, "_cm") {
			t.Errorf("m=%d: picked %s on a device without cooperative matrices", m, c.Variant.Name)
		}
	}
}
