// Package vktest holds what the runtime's Vulkan tests share: which driver
// they run on when the caller chose none.
package vktest

import "os"

// LavapipeICD is the driver manifest of Mesa's lavapipe (Debian's
// mesa-vulkan-drivers), the Vulkan device CI runs every test on.
const LavapipeICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"

// PreferLavapipe points the Vulkan loader at lavapipe unless the caller
// chose a driver (VK_DRIVER_FILES or VK_ICD_FILENAMES) or lavapipe is not
// installed; call it from TestMain before any test opens an instance.
// os.Setenv reaches the C environment the loader reads (purego's fake cgo
// forwards it), so this works with CGO_ENABLED=0.
func PreferLavapipe() {
	if os.Getenv("VK_DRIVER_FILES") != "" || os.Getenv("VK_ICD_FILENAMES") != "" {
		return
	}
	if _, err := os.Stat(LavapipeICD); err == nil {
		os.Setenv("VK_DRIVER_FILES", LavapipeICD)
	}
}
