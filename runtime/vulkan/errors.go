package vulkan

import (
	"errors"
	"fmt"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrNoLoader: libvulkan.so.1 could not be loaded.
	ErrNoLoader = errors.New("vulkan: no Vulkan loader")
	// ErrNoDevice: the loader works but no driver offers a usable device.
	ErrNoDevice = errors.New("vulkan: no Vulkan device")
	// ErrDeviceLost: the driver reported VK_ERROR_DEVICE_LOST, or a wait timed
	// out; the Device cannot be used any more.
	ErrDeviceLost = errors.New("vulkan: device lost")
)

const installHint = "install the Vulkan loader and a driver: apt-get install libvulkan1 mesa-vulkan-drivers (lavapipe, CPU) or your GPU vendor's driver"

// Result is a VkResult.
type Result int32

var resultNames = map[Result]string{
	0:           "VK_SUCCESS",
	1:           "VK_NOT_READY",
	2:           "VK_TIMEOUT",
	3:           "VK_EVENT_SET",
	4:           "VK_EVENT_RESET",
	5:           "VK_INCOMPLETE",
	-1:          "VK_ERROR_OUT_OF_HOST_MEMORY",
	-2:          "VK_ERROR_OUT_OF_DEVICE_MEMORY",
	-3:          "VK_ERROR_INITIALIZATION_FAILED",
	-4:          "VK_ERROR_DEVICE_LOST",
	-5:          "VK_ERROR_MEMORY_MAP_FAILED",
	-6:          "VK_ERROR_LAYER_NOT_PRESENT",
	-7:          "VK_ERROR_EXTENSION_NOT_PRESENT",
	-8:          "VK_ERROR_FEATURE_NOT_PRESENT",
	-9:          "VK_ERROR_INCOMPATIBLE_DRIVER",
	-10:         "VK_ERROR_TOO_MANY_OBJECTS",
	-11:         "VK_ERROR_FORMAT_NOT_SUPPORTED",
	-12:         "VK_ERROR_FRAGMENTED_POOL",
	-13:         "VK_ERROR_UNKNOWN",
	-1000069000: "VK_ERROR_OUT_OF_POOL_MEMORY",
	-1000072003: "VK_ERROR_INVALID_EXTERNAL_HANDLE",
	-1000161000: "VK_ERROR_FRAGMENTATION",
	-1000257000: "VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS",
	1000297000:  "VK_PIPELINE_COMPILE_REQUIRED",
	-1000011001: "VK_ERROR_VALIDATION_FAILED_EXT",
	-1000012000: "VK_ERROR_INVALID_SHADER_NV",
}

func (r Result) String() string {
	if s, ok := resultNames[r]; ok {
		return s
	}
	return "VK_RESULT_UNKNOWN"
}

// Error is a failed Vulkan call: Op is the function name.
type Error struct {
	Op     string
	Result Result
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s (%d)", e.Op, e.Result, int32(e.Result))
}

// Is makes errors.Is(err, ErrDeviceLost) true for VK_ERROR_DEVICE_LOST.
func (e *Error) Is(target error) bool {
	return target == ErrDeviceLost && e.Result == vkErrorDeviceLost
}

// check turns a VkResult into an error; only VK_SUCCESS is success (callers
// that accept other codes, like VK_TIMEOUT, test for them first).
func check(op string, r int32) error {
	if r == vkSuccess {
		return nil
	}
	return &Error{Op: op, Result: Result(r)}
}
