package runtime

import (
	"testing"

	"github.com/kgen-dev/kgen/runtime/table"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// TestVulkanClassPrecedence: a class for one driver of a vendor takes that
// driver's devices only; the vendor's other drivers, and devices reporting
// no driver name, stay with the vendor's class. Before VulkanClass, the
// vendor fallback also considered driver-specific classes and the last one
// in file order won, so a radv class captured AMDVLK devices too.
func TestVulkanClassPrecedence(t *testing.T) {
	archs := []table.Arch{
		{Name: "amd", Backend: "vulkan", VendorID: 0x1002},
		{Name: "gfx1100", Backend: "hip"},
		{Name: "mesa_any", Backend: "vulkan", DriverName: "llvmpipe"},
		{Name: "radv", Backend: "vulkan", VendorID: 0x1002, DriverName: "radv"},
		{Name: "zz_radv_any", Backend: "vulkan", DriverName: "radv"},
	}
	for _, c := range []struct {
		vendor uint32
		driver string
		want   string
	}{
		{0x1002, "radv", "radv"},           // vendor and driver beat driver alone and vendor alone
		{0x1002, "RADV", "radv"},           // driver names compare without case
		{0x1002, "AMD proprietary", "amd"}, // another driver of the vendor: the vendor's class
		{0x1002, "", "amd"},                // no driver name (before Vulkan 1.2)
		{0x10de, "radv", "zz_radv_any"},    // driver alone, any vendor
		{0x10005, "llvmpipe", "mesa_any"},  // driver alone
		{0x8086, "anv", ""},                // nothing matches
	} {
		if got := vulkanClass(archs, c.vendor, c.driver); got != c.want {
			t.Errorf("vendor 0x%x driver %q: class %q, want %q", c.vendor, c.driver, got, c.want)
		}
	}
}

// TestVulkanDeviceDriverNeedsVendor: on the committed classes, a driver
// name alone does not make a device of another vendor an llvmpipe (the
// llvmpipe class matches vendor 0x10005 and driver llvmpipe; the old
// driver-name pass ignored the vendor).
func TestVulkanDeviceDriverNeedsVendor(t *testing.T) {
	d, err := VulkanDevice(vulkan.DeviceInfo{Name: "odd", VendorID: 0x1002, DriverName: "llvmpipe", SubgroupSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	if d.Arch != "amd" {
		t.Fatalf("vendor 0x1002 with driver llvmpipe: class %s, want amd", d.Arch)
	}
	d, err = VulkanDevice(vulkan.DeviceInfo{Name: "lavapipe", VendorID: 0x10005, DriverName: "llvmpipe", SubgroupSize: 8})
	if err != nil || d.Arch != "llvmpipe" {
		t.Fatalf("lavapipe: class %q (%v), want llvmpipe", d.Arch, err)
	}
}

// TestArchDeviceFeatureSuffix: HIP reports arch names with feature
// suffixes; ArchDevice (like kg_arch_device) reads the arch before them.
func TestArchDeviceFeatureSuffix(t *testing.T) {
	d, err := ArchDevice("gfx942:sramecc+:xnack-")
	if err != nil || d.Arch != "gfx942" {
		t.Fatalf("gfx942:sramecc+:xnack-: %+v, %v", d, err)
	}
	if _, err := ArchDevice("gfx1201:xnack-"); err == nil {
		t.Fatal("gfx1201 has no spec file: want an error")
	}
}
