package runtime

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/kgen-dev/kgen/generated"
	"github.com/kgen-dev/kgen/runtime/table"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// VulkanClass is the device class (templates/archs) of a Vulkan device
// with this vendor id and driver name, "" if none matches. A class matches
// when every field of its match agrees with the device (vendor_id, and
// driver_name compared without case); among those, the one matching on
// most wins: vendor and driver, then driver alone, then vendor alone. So a
// class for one driver of a vendor (match: {vendor_id: 0x1002, driver_name:
// radv}) takes that driver's devices and leaves the vendor's other drivers,
// and devices reporting no driver name, to the vendor's class. The spec
// refuses two classes with one match, so the answer never depends on file
// order. kgen_select.h's kg_vulkan_class applies the same precedence.
func VulkanClass(vendorID uint32, driverName string) string {
	return vulkanClass(generated.Archs, vendorID, driverName)
}

func vulkanClass(archs []table.Arch, vendorID uint32, driverName string) string {
	best, bestScore := "", 0
	for _, a := range archs {
		if a.Backend != "vulkan" {
			continue
		}
		score := 0
		if a.VendorID != 0 {
			if a.VendorID != vendorID {
				continue
			}
			score++
		}
		if a.DriverName != "" {
			if !strings.EqualFold(a.DriverName, driverName) {
				continue
			}
			score += 2
		}
		if score > bestScore {
			best, bestScore = a.Name, score
		}
	}
	return best
}

// VulkanDevice describes a Vulkan device for selection: its device class
// (VulkanClass) and the device's own subgroup size, shared memory and
// workgroup limit.
func VulkanDevice(info vulkan.DeviceInfo) (Device, error) {
	class := VulkanClass(info.VendorID, info.DriverName)
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
		Lacks:  strings.Join(vulkan.LackedFeatures(info), ","),
	}, nil
}

// blobFeatures lists the device features v's SPIR-V blob needs (its
// capabilities, vulkan.MissingFeatures on a device with none), memoized per
// artifact; a blob that cannot be read needs nothing here (loading it fails
// later with the reason).
func blobFeatures(v *table.Variant) []string {
	if v.Backend != "vulkan" || v.Artifact == nil {
		return nil
	}
	if f, ok := blobFeatureMemo.Load(v.Artifact.Path); ok {
		return f.([]string)
	}
	b, err := SPIRV(v)
	if err != nil || len(b)%4 != 0 {
		return nil
	}
	code := make([]uint32, len(b)/4)
	for k := range code {
		code[k] = binary.LittleEndian.Uint32(b[4*k:])
	}
	f := vulkan.MissingFeatures(vulkan.DeviceInfo{}, code)
	blobFeatureMemo.Store(v.Artifact.Path, f)
	return f
}

var blobFeatureMemo sync.Map
