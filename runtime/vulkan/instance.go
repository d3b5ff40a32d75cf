package vulkan

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Instance is a VkInstance plus what was learned about each physical device.
type Instance struct {
	g      *globalFuncs
	fn     instanceFuncs
	handle uintptr
	phys   []*physDevice

	mu      sync.Mutex
	devices map[*Device]struct{}
	closed  bool
}

// physDevice keeps, per physical device, the public summary and the raw
// structs OpenDevice and NewBuffer need later.
type physDevice struct {
	handle uintptr
	info   DeviceInfo
	mem    vkPhysicalDeviceMemoryProperties
	core   vkPhysicalDeviceFeatures
	f11    vkPhysicalDeviceVulkan11Features
	f12    vkPhysicalDeviceVulkan12Features
	idot   uint32 // shaderIntegerDotProduct (queried on Vulkan 1.3 only)
	coopNV uint32 // cooperativeMatrix of VK_NV_cooperative_matrix (0 without the extension)
	// pipelineExecutableInfo of VK_KHR_pipeline_executable_properties (0
	// without the extension)
	execInfo uint32
}

// DeviceInfo describes a physical device. Feature booleans say what the
// device supports; OpenDevice enables all of those it knows.
type DeviceInfo struct {
	Index                     int
	Name                      string
	VendorID, DeviceID        uint32
	DeviceType                string // "other", "integrated-gpu", "discrete-gpu", "virtual-gpu", "cpu"
	APIVersion, DriverVersion uint32
	DriverName, DriverInfo    string // VkPhysicalDeviceDriverProperties (empty before Vulkan 1.2)

	// Subgroup support for the compute stage.
	SubgroupSize                                          uint32
	SubgroupBasic, SubgroupArithmetic, SubgroupShuffle    bool
	SubgroupVote, SubgroupBallot, SubgroupShuffleRelative bool
	SubgroupClustered, SubgroupQuad                       bool
	// Min/MaxSubgroupSize come from VkPhysicalDeviceSubgroupSizeControlProperties;
	// zero when the device has neither Vulkan 1.3 nor VK_EXT_subgroup_size_control.
	MinSubgroupSize, MaxSubgroupSize uint32

	ShaderFloat16, ShaderInt16, ShaderInt8 bool
	Storage16Bit, Storage8Bit              bool // storageBuffer16BitAccess, storageBuffer8BitAccess
	ShaderFloat64, ShaderInt64             bool
	SubgroupExtendedTypes                  bool // subgroup ops on 8/16/64-bit types (shaderSubgroupExtendedTypes)
	ScalarBlockLayout                      bool
	// IntegerDotProduct is shaderIntegerDotProduct (Vulkan 1.3 core): SPIR-V
	// with capability DotProduct (OpSDot and kin) runs only where it is set.
	// Queried and enabled on Vulkan 1.3 devices only.
	IntegerDotProduct bool
	// CooperativeMatrixNV is VK_NV_cooperative_matrix's cooperativeMatrix
	// feature: SPIR-V with capability CooperativeMatrixNV runs only where
	// it is set (OpenDevice enables the extension and the feature).
	// CooperativeMatrixNVShapes lists what
	// vkGetPhysicalDeviceCooperativeMatrixPropertiesNV reports.
	CooperativeMatrixNV       bool
	CooperativeMatrixNVShapes []CoopMatShape
	// PipelineStatistics is VK_KHR_pipeline_executable_properties'
	// pipelineExecutableInfo: the driver reports what it compiled a
	// pipeline into (registers, code size, ...), see Pipeline.Statistics.
	PipelineStatistics bool

	MaxWorkgroupInvocations uint32
	MaxWorkgroupSize        [3]uint32
	MaxWorkgroupCount       [3]uint32
	MaxSharedMemory         uint32 // bytes
	MaxStorageBufferRange   uint32 // bytes one storage-buffer descriptor may cover
	MaxPushConstantsSize    uint32

	TimestampPeriod    float32 // nanoseconds per tick
	TimestampValidBits uint32  // of the compute queue family; 0 = no timestamps

	QueueFamily     int    // first compute-capable queue family, -1 if none
	DeviceLocalHeap uint64 // size of the largest device-local memory heap, bytes
}

// CoopMatShape is one cooperative-matrix shape a device supports: D(MxN) =
// A(MxK) * B(KxN) + C, with the component types' names.
type CoopMatShape struct {
	M, N, K    uint32
	A, B, C, D string
	Scope      uint32 // VkScopeNV: 3 = subgroup
}

func (s CoopMatShape) String() string {
	return fmt.Sprintf("%dx%dx%d %s*%s+%s->%s", s.M, s.N, s.K, s.A, s.B, s.C, s.D)
}

// componentTypeNames are VkComponentTypeNV's values.
var componentTypeNames = []string{"f16", "f32", "f64", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"}

func componentType(v uint32) string {
	if int(v) < len(componentTypeNames) {
		return componentTypeNames[v]
	}
	return fmt.Sprintf("type%d", v)
}

// Open loads the Vulkan loader and creates an instance (API 1.2 or newer).
// It fails with ErrNoLoader when libvulkan cannot be loaded and with
// ErrNoDevice when no driver offers a physical device.
func Open() (*Instance, error) {
	g, err := loadGlobal()
	if err != nil {
		return nil, err
	}
	loaderVersion := uint32(1 << 22) // 1.0: a 1.0 loader has no vkEnumerateInstanceVersion
	if g.EnumerateInstanceVersion != nil {
		if err := check("vkEnumerateInstanceVersion", g.EnumerateInstanceVersion(&loaderVersion)); err != nil {
			return nil, err
		}
	}
	if loaderVersion&^0xfff < apiVersion12 {
		return nil, fmt.Errorf("%w: the Vulkan loader supports API %d.%d, need 1.2 or newer; %s",
			ErrNoLoader, apiMajor(loaderVersion), apiMinor(loaderVersion), installHint)
	}
	api := uint32(apiVersion12)
	if loaderVersion&^0xfff >= apiVersion13 {
		api = apiVersion13
	}

	inst := &Instance{g: g, devices: map[*Device]struct{}{}}
	if err := inst.create(api); err != nil {
		return nil, err
	}
	if err := inst.init(); err != nil {
		if inst.fn.DestroyInstance != nil {
			inst.fn.DestroyInstance(inst.handle, nil)
		}
		return nil, err
	}
	return inst, nil
}

// create calls vkCreateInstance. KGEN_VULKAN_VALIDATION=1 enables the Khronos
// validation layer (package vulkan-validationlayers) for debugging.
func (i *Instance) create(api uint32) error {
	var pn runtime.Pinner
	defer pn.Unpin()
	app := pin(&pn, &vkApplicationInfo{
		sType:              stApplicationInfo,
		pApplicationName:   cstr(&pn, "kgen"),
		applicationVersion: 1,
		pEngineName:        cstr(&pn, "kgen"),
		engineVersion:      1,
		apiVersion:         api,
	})
	info := pin(&pn, &vkInstanceCreateInfo{sType: stInstanceCreateInfo, pApplicationInfo: app})
	if os.Getenv("KGEN_VULKAN_VALIDATION") == "1" {
		layers := []*byte{cstr(&pn, "VK_LAYER_KHRONOS_validation")}
		info.enabledLayerCount = 1
		info.ppEnabledLayerNames = pinSlice(&pn, layers)
	}
	r := i.g.CreateInstance(info, nil, &i.handle)
	switch {
	case r == -9: // VK_ERROR_INCOMPATIBLE_DRIVER: the loader found no usable driver
		return fmt.Errorf("%w: %v; %s", ErrNoDevice, check("vkCreateInstance", r), installHint)
	case r == -6 && info.enabledLayerCount > 0: // VK_ERROR_LAYER_NOT_PRESENT
		return fmt.Errorf("%w (KGEN_VULKAN_VALIDATION=1 needs the validation layer: apt-get install vulkan-validationlayers)", check("vkCreateInstance", r))
	case r != vkSuccess:
		return check("vkCreateInstance", r)
	}
	return nil
}

// init binds the instance functions and describes every physical device.
func (i *Instance) init() error {
	// bind fills fields in order, so DestroyInstance (the first) is set
	// whenever anything else is; Open relies on that for cleanup.
	if err := bind(&i.fn, func(name string) uintptr { return i.g.GetInstanceProcAddr(i.handle, name) }); err != nil {
		return err
	}
	var n uint32
	r := i.fn.EnumeratePhysicalDevices(i.handle, &n, nil)
	if r == -3 { // VK_ERROR_INITIALIZATION_FAILED: the loader has no driver
		return fmt.Errorf("%w: %v; %s", ErrNoDevice, check("vkEnumeratePhysicalDevices", r), installHint)
	}
	if err := check("vkEnumeratePhysicalDevices", r); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: the Vulkan loader found no physical device; %s", ErrNoDevice, installHint)
	}
	handles := make([]uintptr, n)
	r = i.fn.EnumeratePhysicalDevices(i.handle, &n, &handles[0])
	if r != vkSuccess && r != vkIncomplete {
		return check("vkEnumeratePhysicalDevices", r)
	}
	for k, h := range handles[:n] {
		pd, err := i.describe(k, h)
		if err != nil {
			return err
		}
		i.phys = append(i.phys, pd)
	}
	return nil
}

// Close closes every Device still open and destroys the instance.
func (i *Instance) Close() {
	i.mu.Lock()
	if i.closed {
		i.mu.Unlock()
		return
	}
	i.closed = true
	devs := make([]*Device, 0, len(i.devices))
	for d := range i.devices {
		devs = append(devs, d)
	}
	i.mu.Unlock()
	for _, d := range devs {
		d.Close()
	}
	i.fn.DestroyInstance(i.handle, nil)
	i.handle = 0
}

// Devices lists the physical devices in the loader's order.
func (i *Instance) Devices() []DeviceInfo {
	out := make([]DeviceInfo, len(i.phys))
	for k, pd := range i.phys {
		out[k] = pd.info
	}
	return out
}

var deviceTypeNames = []string{"other", "integrated-gpu", "discrete-gpu", "virtual-gpu", "cpu"}

// describe queries one physical device. Extension structs are chained only
// when the device's API version or extension list says it understands them.
func (i *Instance) describe(index int, h uintptr) (*physDevice, error) {
	exts, err := i.deviceExtensions(h)
	if err != nil {
		return nil, err
	}
	var base vkPhysicalDeviceProperties
	i.fn.GetPhysicalDeviceProperties(h, &base)
	api := base.apiVersion &^ 0xfff

	var pn runtime.Pinner
	defer pn.Unpin()
	props := pin(&pn, &vkPhysicalDeviceProperties2{sType: stPhysicalDeviceProperties2})
	sub := pin(&pn, &vkPhysicalDeviceSubgroupProperties{sType: stPhysicalDeviceSubgroupProperties})
	drv := pin(&pn, &vkPhysicalDeviceDriverProperties{sType: stPhysicalDeviceDriverProperties})
	ssc := pin(&pn, &vkPhysicalDeviceSubgroupSizeControlProperties{sType: stPhysicalDeviceSubgroupSizeControlP})
	hasDriver := api >= apiVersion12 || exts["VK_KHR_driver_properties"]
	hasSizeControl := api >= apiVersion13 || exts["VK_EXT_subgroup_size_control"]

	pd := &physDevice{handle: h}
	if api >= 1<<22|1<<12 { // properties2 and subgroup properties are Vulkan 1.1
		tail := &sub.pNext
		props.pNext = unsafe.Pointer(sub)
		if hasDriver {
			*tail, tail = unsafe.Pointer(drv), &drv.pNext
		}
		if hasSizeControl {
			*tail = unsafe.Pointer(ssc)
		}
		i.fn.GetPhysicalDeviceProperties2(h, props)
		base = props.properties

		feats := pin(&pn, &vkPhysicalDeviceFeatures2{sType: stPhysicalDeviceFeatures2})
		f11 := pin(&pn, &vkPhysicalDeviceVulkan11Features{sType: stPhysicalDeviceVulkan11Features})
		f12 := pin(&pn, &vkPhysicalDeviceVulkan12Features{sType: stPhysicalDeviceVulkan12Features})
		idot := pin(&pn, &vkPhysicalDeviceShaderIntegerDotProductFeatures{sType: stPhysicalDeviceIntegerDotFeatures})
		if api >= apiVersion12 { // the VulkanXYFeatures structs are Vulkan 1.2
			feats.pNext = unsafe.Pointer(f11)
			f11.pNext = unsafe.Pointer(f12)
		}
		coop := pin(&pn, &vkPhysicalDeviceCooperativeMatrixFeaturesNV{sType: stPhysicalDeviceCoopMatrixFeaturesNV})
		if api >= apiVersion13 { // integer dot products are core in 1.3
			f12.pNext = unsafe.Pointer(idot)
		}
		if exts["VK_NV_cooperative_matrix"] {
			coop.pNext = feats.pNext
			feats.pNext = unsafe.Pointer(coop)
		}
		exec := pin(&pn, &vkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR{sType: stPhysicalDeviceExecPropsFeatures})
		if exts["VK_KHR_pipeline_executable_properties"] {
			exec.pNext = feats.pNext
			feats.pNext = unsafe.Pointer(exec)
		}
		i.fn.GetPhysicalDeviceFeatures2(h, feats)
		pd.core, pd.f11, pd.f12, pd.idot, pd.coopNV = feats.features, *f11, *f12, idot.shaderIntegerDotProduct, coop.cooperativeMatrix
		pd.execInfo = exec.pipelineExecutableInfo
		pd.f11.pNext, pd.f12.pNext = nil, nil // do not keep pointers into pinned memory
	}
	var shapes []CoopMatShape
	if pd.coopNV != 0 {
		shapes = i.coopMatShapesNV(h)
	}
	i.fn.GetPhysicalDeviceMemoryProperties(h, &pd.mem)

	lim := &base.limits
	info := DeviceInfo{
		Index:                     index,
		Name:                      gostr(base.deviceName[:]),
		VendorID:                  base.vendorID,
		DeviceID:                  base.deviceID,
		DeviceType:                "other",
		APIVersion:                base.apiVersion,
		DriverVersion:             base.driverVersion,
		MaxWorkgroupInvocations:   lim.maxComputeWorkGroupInvocations,
		MaxWorkgroupSize:          lim.maxComputeWorkGroupSize,
		MaxWorkgroupCount:         lim.maxComputeWorkGroupCount,
		MaxSharedMemory:           lim.maxComputeSharedMemorySize,
		MaxStorageBufferRange:     lim.maxStorageBufferRange,
		MaxPushConstantsSize:      lim.maxPushConstantsSize,
		TimestampPeriod:           lim.timestampPeriod,
		QueueFamily:               -1,
		ShaderFloat16:             pd.f12.shaderFloat16 != 0,
		ShaderInt8:                pd.f12.shaderInt8 != 0,
		Storage8Bit:               pd.f12.storageBuffer8BitAccess != 0,
		Storage16Bit:              pd.f11.storageBuffer16BitAccess != 0,
		ShaderInt16:               pd.core.shaderInt16 != 0,
		ShaderFloat64:             pd.core.shaderFloat64 != 0,
		ShaderInt64:               pd.core.shaderInt64 != 0,
		SubgroupExtendedTypes:     pd.f12.shaderSubgroupExtendedTypes != 0,
		ScalarBlockLayout:         pd.f12.scalarBlockLayout != 0,
		IntegerDotProduct:         pd.idot != 0,
		CooperativeMatrixNV:       pd.coopNV != 0,
		CooperativeMatrixNVShapes: shapes,
		PipelineStatistics:        pd.execInfo != 0,
	}
	if int(base.deviceType) < len(deviceTypeNames) {
		info.DeviceType = deviceTypeNames[base.deviceType]
	}
	if hasDriver {
		info.DriverName = gostr(drv.driverName[:])
		info.DriverInfo = gostr(drv.driverInfo[:])
	}
	info.SubgroupSize = sub.subgroupSize
	if sub.supportedStages&shaderStageCompute != 0 {
		ops := sub.supportedOperations
		info.SubgroupBasic = ops&subgroupFeatureBasic != 0
		info.SubgroupVote = ops&subgroupFeatureVote != 0
		info.SubgroupArithmetic = ops&subgroupFeatureArithmetic != 0
		info.SubgroupBallot = ops&subgroupFeatureBallot != 0
		info.SubgroupShuffle = ops&subgroupFeatureShuffle != 0
		info.SubgroupShuffleRelative = ops&subgroupFeatureShuffleRelative != 0
		info.SubgroupClustered = ops&subgroupFeatureClustered != 0
		info.SubgroupQuad = ops&subgroupFeatureQuad != 0
	}
	if hasSizeControl {
		info.MinSubgroupSize = ssc.minSubgroupSize
		info.MaxSubgroupSize = ssc.maxSubgroupSize
	}

	var nq uint32
	i.fn.GetPhysicalDeviceQueueFamilyProperties(h, &nq, nil)
	if nq > 0 {
		fams := make([]vkQueueFamilyProperties, nq)
		i.fn.GetPhysicalDeviceQueueFamilyProperties(h, &nq, &fams[0])
		for k, f := range fams[:nq] {
			if f.queueFlags&queueComputeBit != 0 && f.queueCount > 0 {
				info.QueueFamily = k
				info.TimestampValidBits = f.timestampValidBits
				break
			}
		}
	}
	for k := uint32(0); k < pd.mem.memoryHeapCount && k < uint32(len(pd.mem.memoryHeaps)); k++ {
		heap := pd.mem.memoryHeaps[k]
		if heap.flags&1 != 0 && heap.size > info.DeviceLocalHeap { // VK_MEMORY_HEAP_DEVICE_LOCAL_BIT
			info.DeviceLocalHeap = heap.size
		}
	}
	pd.info = info
	return pd, nil
}

// coopMatShapesNV lists the device's VK_NV_cooperative_matrix shapes (nil
// when the entry point is missing or the query fails).
func (i *Instance) coopMatShapesNV(h uintptr) []CoopMatShape {
	p := i.g.GetInstanceProcAddr(i.handle, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV")
	if p == 0 {
		return nil
	}
	var get func(pd uintptr, count *uint32, props *vkCooperativeMatrixPropertiesNV) int32
	purego.RegisterFunc(&get, p)
	var n uint32
	if get(h, &n, nil) != vkSuccess || n == 0 {
		return nil
	}
	props := make([]vkCooperativeMatrixPropertiesNV, n)
	for k := range props {
		props[k].sType = stCooperativeMatrixPropertiesNV
	}
	if r := get(h, &n, &props[0]); r != vkSuccess && r != vkIncomplete {
		return nil
	}
	out := make([]CoopMatShape, 0, n)
	for _, c := range props[:n] {
		out = append(out, CoopMatShape{M: c.MSize, N: c.NSize, K: c.KSize, A: componentType(c.AType), B: componentType(c.BType),
			C: componentType(c.CType), D: componentType(c.DType), Scope: c.scope})
	}
	return out
}

// deviceExtensions returns the set of extension names a device offers.
func (i *Instance) deviceExtensions(h uintptr) (map[string]bool, error) {
	for {
		var n uint32
		if err := check("vkEnumerateDeviceExtensionProperties", i.fn.EnumerateDeviceExtensionProperties(h, nil, &n, nil)); err != nil {
			return nil, err
		}
		if n == 0 {
			return map[string]bool{}, nil
		}
		props := make([]vkExtensionProperties, n)
		r := i.fn.EnumerateDeviceExtensionProperties(h, nil, &n, &props[0])
		if r == vkIncomplete {
			continue // the list grew between the two calls
		}
		if err := check("vkEnumerateDeviceExtensionProperties", r); err != nil {
			return nil, err
		}
		set := make(map[string]bool, n)
		for _, p := range props[:n] {
			set[gostr(p.extensionName[:])] = true
		}
		return set, nil
	}
}

// errClosed is returned by calls on a closed Instance, Device or object.
var errClosed = errors.New("vulkan: use after Close/Free/Destroy")
