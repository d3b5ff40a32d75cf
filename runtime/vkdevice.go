package runtime

import (
	"fmt"
	"strings"

	"github.com/kgen-dev/kgen/generated"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// VulkanDevice describes a Vulkan device for selection: its device class is
// the spec's class whose match names the device's driver, else its vendor.
func VulkanDevice(info vulkan.DeviceInfo) (Device, error) {
	class := ""
	for _, a := range generated.Archs {
		if a.Backend == "vulkan" && a.DriverName != "" && strings.EqualFold(a.DriverName, info.DriverName) {
			class = a.Name
		}
	}
	if class == "" {
		for _, a := range generated.Archs {
			if a.Backend == "vulkan" && a.VendorID != 0 && a.VendorID == info.VendorID {
				class = a.Name
			}
		}
	}
	if class == "" {
		return Device{}, fmt.Errorf("Vulkan device %q (vendor 0x%x, driver %s) matches no device class in templates/archs; add one with match: {vendor_id: 0x%x}",
			info.Name, info.VendorID, info.DriverName, info.VendorID)
	}
	a, _ := ArchDevice(class)
	min := int(info.MinSubgroupSize)
	if min == 0 {
		min = int(info.SubgroupSize)
	}
	return Device{
		Backend: "vulkan", Arch: class, Name: info.Name, Wave: int(info.SubgroupSize), ComputeUnits: a.ComputeUnits,
		SharedMemory: int(info.MaxSharedMemory), MaxWorkgroup: int(info.MaxWorkgroupInvocations), MinSubgroup: min,
		Driver: fmt.Sprintf("%s %s (0x%x)", info.DriverName, info.DriverInfo, info.DriverVersion),
	}, nil
}
