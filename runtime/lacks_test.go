package runtime

import (
	"strings"
	"testing"
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
