// Package vulkan runs SPIR-V compute kernels through the Vulkan API without
// cgo: libvulkan.so.1 is opened at run time with purego, so binaries built
// with CGO_ENABLED=0 work on any machine that has a Vulkan loader and driver
// (lavapipe on the CPU, the NVIDIA driver on a GPU, ...).
//
// The model is deliberately small: an Instance lists physical devices; a
// Device owns one compute queue; Buffers are device-local storage buffers
// filled and read through a staging buffer; a Pipeline is one compute shader
// whose descriptor set 0 holds N storage buffers and which takes one
// push-constant block; Run submits a list of Dispatches separated by
// barriers and waits; Time does the same with GPU timestamps.
//
//	inst, err := vulkan.Open() // errors.Is(err, vulkan.ErrNoLoader / ErrNoDevice)
//	dev, err := inst.OpenDevice(0)
//	p, err := dev.NewPipeline(spirv, "main", []vulkan.SpecConst{{ID: 0, Value: 64}}, 3, 8)
//	err = dev.Run(vulkan.Dispatch{Pipeline: p, Buffers: []*vulkan.Buffer{w, x, y}, Push: push, Groups: [3]uint32{rows, 1, 1}})
//
// Environment: VK_DRIVER_FILES selects the driver (the loader reads it),
// e.g. /usr/share/vulkan/icd.d/lvp_icd.x86_64.json for lavapipe.
// KGEN_VULKAN_VALIDATION=1 enables VK_LAYER_KHRONOS_validation; add
// VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT
// to check barriers too. Messages go to stdout.
//
// Memory rules for the purego calls: every struct handed to Vulkan is a Go
// struct with the exact C layout (layout_test.go checks it against the
// header with gcc), and any Go memory such a struct points at is pinned with
// runtime.Pinner for the duration of the call.
package vulkan
