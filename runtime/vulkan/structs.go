package vulkan

import "unsafe"

// The types below mirror the C structs of vulkan_core.h field for field, for
// x86-64 and arm64 (LP64) Linux. purego passes them by pointer and does not
// insert padding, so every hole the C compiler leaves is spelled out as a
// "_ [N]byte" field. Field names are the C names so layout_test.go can match
// them against offsetof() from the real header.
//
// Handle types: dispatchable handles (VkInstance, VkDevice, VkQueue,
// VkCommandBuffer, VkPhysicalDevice) are C pointers and live in uintptr;
// non-dispatchable handles (VkBuffer, VkPipeline, ...) are uint64 on every
// platform. Pointer fields point at Go memory that the caller pins.

// vkApplicationInfo mirrors C VkApplicationInfo (48 bytes).
type vkApplicationInfo struct {
	sType              uint32
	_                  [4]byte
	pNext              unsafe.Pointer
	pApplicationName   *byte
	applicationVersion uint32
	_                  [4]byte
	pEngineName        *byte
	engineVersion      uint32
	apiVersion         uint32
}

// vkInstanceCreateInfo mirrors C VkInstanceCreateInfo (64 bytes).
type vkInstanceCreateInfo struct {
	sType                   uint32
	_                       [4]byte
	pNext                   unsafe.Pointer
	flags                   uint32
	_                       [4]byte
	pApplicationInfo        *vkApplicationInfo
	enabledLayerCount       uint32
	_                       [4]byte
	ppEnabledLayerNames     **byte
	enabledExtensionCount   uint32
	_                       [4]byte
	ppEnabledExtensionNames **byte
}

// vkExtensionProperties mirrors C VkExtensionProperties (260 bytes).
type vkExtensionProperties struct {
	extensionName [256]byte
	specVersion   uint32
}

// vkPhysicalDeviceLimits mirrors C VkPhysicalDeviceLimits (504 bytes).
type vkPhysicalDeviceLimits struct {
	maxImageDimension1D                             uint32
	maxImageDimension2D                             uint32
	maxImageDimension3D                             uint32
	maxImageDimensionCube                           uint32
	maxImageArrayLayers                             uint32
	maxTexelBufferElements                          uint32
	maxUniformBufferRange                           uint32
	maxStorageBufferRange                           uint32
	maxPushConstantsSize                            uint32
	maxMemoryAllocationCount                        uint32
	maxSamplerAllocationCount                       uint32
	_                                               [4]byte
	bufferImageGranularity                          uint64
	sparseAddressSpaceSize                          uint64
	maxBoundDescriptorSets                          uint32
	maxPerStageDescriptorSamplers                   uint32
	maxPerStageDescriptorUniformBuffers             uint32
	maxPerStageDescriptorStorageBuffers             uint32
	maxPerStageDescriptorSampledImages              uint32
	maxPerStageDescriptorStorageImages              uint32
	maxPerStageDescriptorInputAttachments           uint32
	maxPerStageResources                            uint32
	maxDescriptorSetSamplers                        uint32
	maxDescriptorSetUniformBuffers                  uint32
	maxDescriptorSetUniformBuffersDynamic           uint32
	maxDescriptorSetStorageBuffers                  uint32
	maxDescriptorSetStorageBuffersDynamic           uint32
	maxDescriptorSetSampledImages                   uint32
	maxDescriptorSetStorageImages                   uint32
	maxDescriptorSetInputAttachments                uint32
	maxVertexInputAttributes                        uint32
	maxVertexInputBindings                          uint32
	maxVertexInputAttributeOffset                   uint32
	maxVertexInputBindingStride                     uint32
	maxVertexOutputComponents                       uint32
	maxTessellationGenerationLevel                  uint32
	maxTessellationPatchSize                        uint32
	maxTessellationControlPerVertexInputComponents  uint32
	maxTessellationControlPerVertexOutputComponents uint32
	maxTessellationControlPerPatchOutputComponents  uint32
	maxTessellationControlTotalOutputComponents     uint32
	maxTessellationEvaluationInputComponents        uint32
	maxTessellationEvaluationOutputComponents       uint32
	maxGeometryShaderInvocations                    uint32
	maxGeometryInputComponents                      uint32
	maxGeometryOutputComponents                     uint32
	maxGeometryOutputVertices                       uint32
	maxGeometryTotalOutputComponents                uint32
	maxFragmentInputComponents                      uint32
	maxFragmentOutputAttachments                    uint32
	maxFragmentDualSrcAttachments                   uint32
	maxFragmentCombinedOutputResources              uint32
	maxComputeSharedMemorySize                      uint32
	maxComputeWorkGroupCount                        [3]uint32
	maxComputeWorkGroupInvocations                  uint32
	maxComputeWorkGroupSize                         [3]uint32
	subPixelPrecisionBits                           uint32
	subTexelPrecisionBits                           uint32
	mipmapPrecisionBits                             uint32
	maxDrawIndexedIndexValue                        uint32
	maxDrawIndirectCount                            uint32
	maxSamplerLodBias                               float32
	maxSamplerAnisotropy                            float32
	maxViewports                                    uint32
	maxViewportDimensions                           [2]uint32
	viewportBoundsRange                             [2]float32
	viewportSubPixelBits                            uint32
	_                                               [4]byte
	minMemoryMapAlignment                           uintptr
	minTexelBufferOffsetAlignment                   uint64
	minUniformBufferOffsetAlignment                 uint64
	minStorageBufferOffsetAlignment                 uint64
	minTexelOffset                                  int32
	maxTexelOffset                                  uint32
	minTexelGatherOffset                            int32
	maxTexelGatherOffset                            uint32
	minInterpolationOffset                          float32
	maxInterpolationOffset                          float32
	subPixelInterpolationOffsetBits                 uint32
	maxFramebufferWidth                             uint32
	maxFramebufferHeight                            uint32
	maxFramebufferLayers                            uint32
	framebufferColorSampleCounts                    uint32
	framebufferDepthSampleCounts                    uint32
	framebufferStencilSampleCounts                  uint32
	framebufferNoAttachmentsSampleCounts            uint32
	maxColorAttachments                             uint32
	sampledImageColorSampleCounts                   uint32
	sampledImageIntegerSampleCounts                 uint32
	sampledImageDepthSampleCounts                   uint32
	sampledImageStencilSampleCounts                 uint32
	storageImageSampleCounts                        uint32
	maxSampleMaskWords                              uint32
	timestampComputeAndGraphics                     uint32
	timestampPeriod                                 float32
	maxClipDistances                                uint32
	maxCullDistances                                uint32
	maxCombinedClipAndCullDistances                 uint32
	discreteQueuePriorities                         uint32
	pointSizeRange                                  [2]float32
	lineWidthRange                                  [2]float32
	pointSizeGranularity                            float32
	lineWidthGranularity                            float32
	strictLines                                     uint32
	standardSampleLocations                         uint32
	_                                               [4]byte
	optimalBufferCopyOffsetAlignment                uint64
	optimalBufferCopyRowPitchAlignment              uint64
	nonCoherentAtomSize                             uint64
}

// vkPhysicalDeviceSparseProperties mirrors C VkPhysicalDeviceSparseProperties (20 bytes).
type vkPhysicalDeviceSparseProperties struct {
	residencyStandard2DBlockShape            uint32
	residencyStandard2DMultisampleBlockShape uint32
	residencyStandard3DBlockShape            uint32
	residencyAlignedMipSize                  uint32
	residencyNonResidentStrict               uint32
}

// vkPhysicalDeviceProperties mirrors C VkPhysicalDeviceProperties (824 bytes).
type vkPhysicalDeviceProperties struct {
	apiVersion        uint32
	driverVersion     uint32
	vendorID          uint32
	deviceID          uint32
	deviceType        uint32
	deviceName        [256]byte
	pipelineCacheUUID [16]uint8
	_                 [4]byte
	limits            vkPhysicalDeviceLimits
	sparseProperties  vkPhysicalDeviceSparseProperties
	_                 [4]byte
}

// vkPhysicalDeviceProperties2 mirrors C VkPhysicalDeviceProperties2 (840 bytes).
type vkPhysicalDeviceProperties2 struct {
	sType      uint32
	_          [4]byte
	pNext      unsafe.Pointer
	properties vkPhysicalDeviceProperties
}

// vkPhysicalDeviceSubgroupProperties mirrors C VkPhysicalDeviceSubgroupProperties (32 bytes).
type vkPhysicalDeviceSubgroupProperties struct {
	sType                     uint32
	_                         [4]byte
	pNext                     unsafe.Pointer
	subgroupSize              uint32
	supportedStages           uint32
	supportedOperations       uint32
	quadOperationsInAllStages uint32
}

// vkPhysicalDeviceSubgroupSizeControlProperties mirrors C VkPhysicalDeviceSubgroupSizeControlProperties (32 bytes).
type vkPhysicalDeviceSubgroupSizeControlProperties struct {
	sType                        uint32
	_                            [4]byte
	pNext                        unsafe.Pointer
	minSubgroupSize              uint32
	maxSubgroupSize              uint32
	maxComputeWorkgroupSubgroups uint32
	requiredSubgroupSizeStages   uint32
}

// vkConformanceVersion mirrors C VkConformanceVersion (4 bytes).
type vkConformanceVersion struct {
	major    uint8
	minor    uint8
	subminor uint8
	patch    uint8
}

// vkPhysicalDeviceDriverProperties mirrors C VkPhysicalDeviceDriverProperties (536 bytes).
type vkPhysicalDeviceDriverProperties struct {
	sType              uint32
	_                  [4]byte
	pNext              unsafe.Pointer
	driverID           uint32
	driverName         [256]byte
	driverInfo         [256]byte
	conformanceVersion vkConformanceVersion
}

// vkPhysicalDeviceFeatures mirrors C VkPhysicalDeviceFeatures (220 bytes).
type vkPhysicalDeviceFeatures struct {
	robustBufferAccess                      uint32
	fullDrawIndexUint32                     uint32
	imageCubeArray                          uint32
	independentBlend                        uint32
	geometryShader                          uint32
	tessellationShader                      uint32
	sampleRateShading                       uint32
	dualSrcBlend                            uint32
	logicOp                                 uint32
	multiDrawIndirect                       uint32
	drawIndirectFirstInstance               uint32
	depthClamp                              uint32
	depthBiasClamp                          uint32
	fillModeNonSolid                        uint32
	depthBounds                             uint32
	wideLines                               uint32
	largePoints                             uint32
	alphaToOne                              uint32
	multiViewport                           uint32
	samplerAnisotropy                       uint32
	textureCompressionETC2                  uint32
	textureCompressionASTC_LDR              uint32
	textureCompressionBC                    uint32
	occlusionQueryPrecise                   uint32
	pipelineStatisticsQuery                 uint32
	vertexPipelineStoresAndAtomics          uint32
	fragmentStoresAndAtomics                uint32
	shaderTessellationAndGeometryPointSize  uint32
	shaderImageGatherExtended               uint32
	shaderStorageImageExtendedFormats       uint32
	shaderStorageImageMultisample           uint32
	shaderStorageImageReadWithoutFormat     uint32
	shaderStorageImageWriteWithoutFormat    uint32
	shaderUniformBufferArrayDynamicIndexing uint32
	shaderSampledImageArrayDynamicIndexing  uint32
	shaderStorageBufferArrayDynamicIndexing uint32
	shaderStorageImageArrayDynamicIndexing  uint32
	shaderClipDistance                      uint32
	shaderCullDistance                      uint32
	shaderFloat64                           uint32
	shaderInt64                             uint32
	shaderInt16                             uint32
	shaderResourceResidency                 uint32
	shaderResourceMinLod                    uint32
	sparseBinding                           uint32
	sparseResidencyBuffer                   uint32
	sparseResidencyImage2D                  uint32
	sparseResidencyImage3D                  uint32
	sparseResidency2Samples                 uint32
	sparseResidency4Samples                 uint32
	sparseResidency8Samples                 uint32
	sparseResidency16Samples                uint32
	sparseResidencyAliased                  uint32
	variableMultisampleRate                 uint32
	inheritedQueries                        uint32
}

// vkPhysicalDeviceFeatures2 mirrors C VkPhysicalDeviceFeatures2 (240 bytes).
type vkPhysicalDeviceFeatures2 struct {
	sType    uint32
	_        [4]byte
	pNext    unsafe.Pointer
	features vkPhysicalDeviceFeatures
	_        [4]byte
}

// vkPhysicalDeviceVulkan11Features mirrors C VkPhysicalDeviceVulkan11Features (64 bytes).
type vkPhysicalDeviceVulkan11Features struct {
	sType                              uint32
	_                                  [4]byte
	pNext                              unsafe.Pointer
	storageBuffer16BitAccess           uint32
	uniformAndStorageBuffer16BitAccess uint32
	storagePushConstant16              uint32
	storageInputOutput16               uint32
	multiview                          uint32
	multiviewGeometryShader            uint32
	multiviewTessellationShader        uint32
	variablePointersStorageBuffer      uint32
	variablePointers                   uint32
	protectedMemory                    uint32
	samplerYcbcrConversion             uint32
	shaderDrawParameters               uint32
}

// vkPhysicalDeviceShaderIntegerDotProductFeatures mirrors C
// VkPhysicalDeviceShaderIntegerDotProductFeatures (24 bytes; Vulkan 1.3 core,
// VK_KHR_shader_integer_dot_product before).
type vkPhysicalDeviceShaderIntegerDotProductFeatures struct {
	sType                   uint32
	_                       [4]byte
	pNext                   unsafe.Pointer
	shaderIntegerDotProduct uint32
	_                       [4]byte
}

// vkPhysicalDeviceCooperativeMatrixFeaturesNV mirrors C
// VkPhysicalDeviceCooperativeMatrixFeaturesNV (24 bytes; VK_NV_cooperative_matrix).
type vkPhysicalDeviceCooperativeMatrixFeaturesNV struct {
	sType                               uint32
	_                                   [4]byte
	pNext                               unsafe.Pointer
	cooperativeMatrix                   uint32
	cooperativeMatrixRobustBufferAccess uint32
}

// vkCooperativeMatrixPropertiesNV mirrors C VkCooperativeMatrixPropertiesNV
// (48 bytes): one supported MxNxK shape with its component types
// (VkComponentTypeNV) and scope.
type vkCooperativeMatrixPropertiesNV struct {
	sType                      uint32
	_                          [4]byte
	pNext                      unsafe.Pointer
	MSize, NSize, KSize        uint32
	AType, BType, CType, DType uint32
	scope                      uint32
}

// vkPhysicalDeviceVulkan12Features mirrors C VkPhysicalDeviceVulkan12Features (208 bytes).
type vkPhysicalDeviceVulkan12Features struct {
	sType                                              uint32
	_                                                  [4]byte
	pNext                                              unsafe.Pointer
	samplerMirrorClampToEdge                           uint32
	drawIndirectCount                                  uint32
	storageBuffer8BitAccess                            uint32
	uniformAndStorageBuffer8BitAccess                  uint32
	storagePushConstant8                               uint32
	shaderBufferInt64Atomics                           uint32
	shaderSharedInt64Atomics                           uint32
	shaderFloat16                                      uint32
	shaderInt8                                         uint32
	descriptorIndexing                                 uint32
	shaderInputAttachmentArrayDynamicIndexing          uint32
	shaderUniformTexelBufferArrayDynamicIndexing       uint32
	shaderStorageTexelBufferArrayDynamicIndexing       uint32
	shaderUniformBufferArrayNonUniformIndexing         uint32
	shaderSampledImageArrayNonUniformIndexing          uint32
	shaderStorageBufferArrayNonUniformIndexing         uint32
	shaderStorageImageArrayNonUniformIndexing          uint32
	shaderInputAttachmentArrayNonUniformIndexing       uint32
	shaderUniformTexelBufferArrayNonUniformIndexing    uint32
	shaderStorageTexelBufferArrayNonUniformIndexing    uint32
	descriptorBindingUniformBufferUpdateAfterBind      uint32
	descriptorBindingSampledImageUpdateAfterBind       uint32
	descriptorBindingStorageImageUpdateAfterBind       uint32
	descriptorBindingStorageBufferUpdateAfterBind      uint32
	descriptorBindingUniformTexelBufferUpdateAfterBind uint32
	descriptorBindingStorageTexelBufferUpdateAfterBind uint32
	descriptorBindingUpdateUnusedWhilePending          uint32
	descriptorBindingPartiallyBound                    uint32
	descriptorBindingVariableDescriptorCount           uint32
	runtimeDescriptorArray                             uint32
	samplerFilterMinmax                                uint32
	scalarBlockLayout                                  uint32
	imagelessFramebuffer                               uint32
	uniformBufferStandardLayout                        uint32
	shaderSubgroupExtendedTypes                        uint32
	separateDepthStencilLayouts                        uint32
	hostQueryReset                                     uint32
	timelineSemaphore                                  uint32
	bufferDeviceAddress                                uint32
	bufferDeviceAddressCaptureReplay                   uint32
	bufferDeviceAddressMultiDevice                     uint32
	vulkanMemoryModel                                  uint32
	vulkanMemoryModelDeviceScope                       uint32
	vulkanMemoryModelAvailabilityVisibilityChains      uint32
	shaderOutputViewportIndex                          uint32
	shaderOutputLayer                                  uint32
	subgroupBroadcastDynamicId                         uint32
	_                                                  [4]byte
}

// vkExtent3D mirrors C VkExtent3D (12 bytes).
type vkExtent3D struct {
	width  uint32
	height uint32
	depth  uint32
}

// vkQueueFamilyProperties mirrors C VkQueueFamilyProperties (24 bytes).
type vkQueueFamilyProperties struct {
	queueFlags                  uint32
	queueCount                  uint32
	timestampValidBits          uint32
	minImageTransferGranularity vkExtent3D
}

// vkDeviceQueueCreateInfo mirrors C VkDeviceQueueCreateInfo (40 bytes).
type vkDeviceQueueCreateInfo struct {
	sType            uint32
	_                [4]byte
	pNext            unsafe.Pointer
	flags            uint32
	queueFamilyIndex uint32
	queueCount       uint32
	_                [4]byte
	pQueuePriorities *float32
}

// vkDeviceCreateInfo mirrors C VkDeviceCreateInfo (72 bytes).
type vkDeviceCreateInfo struct {
	sType                   uint32
	_                       [4]byte
	pNext                   unsafe.Pointer
	flags                   uint32
	queueCreateInfoCount    uint32
	pQueueCreateInfos       *vkDeviceQueueCreateInfo
	enabledLayerCount       uint32
	_                       [4]byte
	ppEnabledLayerNames     **byte
	enabledExtensionCount   uint32
	_                       [4]byte
	ppEnabledExtensionNames **byte
	pEnabledFeatures        *vkPhysicalDeviceFeatures
}

// vkMemoryType mirrors C VkMemoryType (8 bytes).
type vkMemoryType struct {
	propertyFlags uint32
	heapIndex     uint32
}

// vkMemoryHeap mirrors C VkMemoryHeap (16 bytes).
type vkMemoryHeap struct {
	size  uint64
	flags uint32
	_     [4]byte
}

// vkPhysicalDeviceMemoryProperties mirrors C VkPhysicalDeviceMemoryProperties (520 bytes).
type vkPhysicalDeviceMemoryProperties struct {
	memoryTypeCount uint32
	memoryTypes     [32]vkMemoryType
	memoryHeapCount uint32
	memoryHeaps     [16]vkMemoryHeap
}

// vkBufferCreateInfo mirrors C VkBufferCreateInfo (56 bytes).
type vkBufferCreateInfo struct {
	sType                 uint32
	_                     [4]byte
	pNext                 unsafe.Pointer
	flags                 uint32
	_                     [4]byte
	size                  uint64
	usage                 uint32
	sharingMode           uint32
	queueFamilyIndexCount uint32
	_                     [4]byte
	pQueueFamilyIndices   *uint32
}

// vkMemoryRequirements mirrors C VkMemoryRequirements (24 bytes).
type vkMemoryRequirements struct {
	size           uint64
	alignment      uint64
	memoryTypeBits uint32
	_              [4]byte
}

// vkMemoryAllocateInfo mirrors C VkMemoryAllocateInfo (32 bytes).
type vkMemoryAllocateInfo struct {
	sType           uint32
	_               [4]byte
	pNext           unsafe.Pointer
	allocationSize  uint64
	memoryTypeIndex uint32
	_               [4]byte
}

// vkCommandPoolCreateInfo mirrors C VkCommandPoolCreateInfo (24 bytes).
type vkCommandPoolCreateInfo struct {
	sType            uint32
	_                [4]byte
	pNext            unsafe.Pointer
	flags            uint32
	queueFamilyIndex uint32
}

// vkCommandBufferAllocateInfo mirrors C VkCommandBufferAllocateInfo (32 bytes).
type vkCommandBufferAllocateInfo struct {
	sType              uint32
	_                  [4]byte
	pNext              unsafe.Pointer
	commandPool        uint64
	level              uint32
	commandBufferCount uint32
}

// vkCommandBufferBeginInfo mirrors C VkCommandBufferBeginInfo (32 bytes).
type vkCommandBufferBeginInfo struct {
	sType            uint32
	_                [4]byte
	pNext            unsafe.Pointer
	flags            uint32
	_                [4]byte
	pInheritanceInfo unsafe.Pointer
}

// vkBufferCopy mirrors C VkBufferCopy (24 bytes).
type vkBufferCopy struct {
	srcOffset uint64
	dstOffset uint64
	size      uint64
}

// vkSubmitInfo mirrors C VkSubmitInfo (72 bytes).
type vkSubmitInfo struct {
	sType                uint32
	_                    [4]byte
	pNext                unsafe.Pointer
	waitSemaphoreCount   uint32
	_                    [4]byte
	pWaitSemaphores      *uint64
	pWaitDstStageMask    *uint32
	commandBufferCount   uint32
	_                    [4]byte
	pCommandBuffers      *uintptr
	signalSemaphoreCount uint32
	_                    [4]byte
	pSignalSemaphores    *uint64
}

// vkFenceCreateInfo mirrors C VkFenceCreateInfo (24 bytes).
type vkFenceCreateInfo struct {
	sType uint32
	_     [4]byte
	pNext unsafe.Pointer
	flags uint32
	_     [4]byte
}

// vkShaderModuleCreateInfo mirrors C VkShaderModuleCreateInfo (40 bytes).
type vkShaderModuleCreateInfo struct {
	sType    uint32
	_        [4]byte
	pNext    unsafe.Pointer
	flags    uint32
	_        [4]byte
	codeSize uintptr
	pCode    *uint32
}

// vkSpecializationMapEntry mirrors C VkSpecializationMapEntry (16 bytes).
type vkSpecializationMapEntry struct {
	constantID uint32
	offset     uint32
	size       uintptr
}

// vkSpecializationInfo mirrors C VkSpecializationInfo (32 bytes).
type vkSpecializationInfo struct {
	mapEntryCount uint32
	_             [4]byte
	pMapEntries   *vkSpecializationMapEntry
	dataSize      uintptr
	pData         unsafe.Pointer
}

// vkPipelineShaderStageCreateInfo mirrors C VkPipelineShaderStageCreateInfo (48 bytes).
type vkPipelineShaderStageCreateInfo struct {
	sType               uint32
	_                   [4]byte
	pNext               unsafe.Pointer
	flags               uint32
	stage               uint32
	module              uint64
	pName               *byte
	pSpecializationInfo *vkSpecializationInfo
}

// vkComputePipelineCreateInfo mirrors C VkComputePipelineCreateInfo (96 bytes).
type vkComputePipelineCreateInfo struct {
	sType              uint32
	_                  [4]byte
	pNext              unsafe.Pointer
	flags              uint32
	_                  [4]byte
	stage              vkPipelineShaderStageCreateInfo
	layout             uint64
	basePipelineHandle uint64
	basePipelineIndex  int32
	_                  [4]byte
}

// vkDescriptorSetLayoutBinding mirrors C VkDescriptorSetLayoutBinding (24 bytes).
type vkDescriptorSetLayoutBinding struct {
	binding            uint32
	descriptorType     uint32
	descriptorCount    uint32
	stageFlags         uint32
	pImmutableSamplers *uint64
}

// vkDescriptorSetLayoutCreateInfo mirrors C VkDescriptorSetLayoutCreateInfo (32 bytes).
type vkDescriptorSetLayoutCreateInfo struct {
	sType        uint32
	_            [4]byte
	pNext        unsafe.Pointer
	flags        uint32
	bindingCount uint32
	pBindings    *vkDescriptorSetLayoutBinding
}

// vkPushConstantRange mirrors C VkPushConstantRange (12 bytes).
type vkPushConstantRange struct {
	stageFlags uint32
	offset     uint32
	size       uint32
}

// vkPipelineLayoutCreateInfo mirrors C VkPipelineLayoutCreateInfo (48 bytes).
type vkPipelineLayoutCreateInfo struct {
	sType                  uint32
	_                      [4]byte
	pNext                  unsafe.Pointer
	flags                  uint32
	setLayoutCount         uint32
	pSetLayouts            *uint64
	pushConstantRangeCount uint32
	_                      [4]byte
	pPushConstantRanges    *vkPushConstantRange
}

// vkDescriptorPoolSize mirrors C VkDescriptorPoolSize (8 bytes).
type vkDescriptorPoolSize struct {
	type_           uint32 // C "type" (a Go keyword)
	descriptorCount uint32
}

// vkDescriptorPoolCreateInfo mirrors C VkDescriptorPoolCreateInfo (40 bytes).
type vkDescriptorPoolCreateInfo struct {
	sType         uint32
	_             [4]byte
	pNext         unsafe.Pointer
	flags         uint32
	maxSets       uint32
	poolSizeCount uint32
	_             [4]byte
	pPoolSizes    *vkDescriptorPoolSize
}

// vkDescriptorSetAllocateInfo mirrors C VkDescriptorSetAllocateInfo (40 bytes).
type vkDescriptorSetAllocateInfo struct {
	sType              uint32
	_                  [4]byte
	pNext              unsafe.Pointer
	descriptorPool     uint64
	descriptorSetCount uint32
	_                  [4]byte
	pSetLayouts        *uint64
}

// vkDescriptorBufferInfo mirrors C VkDescriptorBufferInfo (24 bytes).
type vkDescriptorBufferInfo struct {
	buffer uint64
	offset uint64
	range_ uint64 // C "range" (a Go keyword)
}

// vkWriteDescriptorSet mirrors C VkWriteDescriptorSet (64 bytes).
type vkWriteDescriptorSet struct {
	sType            uint32
	_                [4]byte
	pNext            unsafe.Pointer
	dstSet           uint64
	dstBinding       uint32
	dstArrayElement  uint32
	descriptorCount  uint32
	descriptorType   uint32
	pImageInfo       unsafe.Pointer
	pBufferInfo      *vkDescriptorBufferInfo
	pTexelBufferView *uint64
}

// vkMemoryBarrier mirrors C VkMemoryBarrier (24 bytes).
type vkMemoryBarrier struct {
	sType         uint32
	_             [4]byte
	pNext         unsafe.Pointer
	srcAccessMask uint32
	dstAccessMask uint32
}

// vkBufferMemoryBarrier mirrors C VkBufferMemoryBarrier (56 bytes).
type vkBufferMemoryBarrier struct {
	sType               uint32
	_                   [4]byte
	pNext               unsafe.Pointer
	srcAccessMask       uint32
	dstAccessMask       uint32
	srcQueueFamilyIndex uint32
	dstQueueFamilyIndex uint32
	buffer              uint64
	offset              uint64
	size                uint64
}

// vkQueryPoolCreateInfo mirrors C VkQueryPoolCreateInfo (32 bytes).
type vkQueryPoolCreateInfo struct {
	sType              uint32
	_                  [4]byte
	pNext              unsafe.Pointer
	flags              uint32
	queryType          uint32
	queryCount         uint32
	pipelineStatistics uint32
}

// vkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR mirrors C
// VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR.
type vkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR struct {
	sType                  uint32
	_                      [4]byte
	pNext                  unsafe.Pointer
	pipelineExecutableInfo uint32
	_                      [4]byte
}

// vkPipelineInfoKHR mirrors C VkPipelineInfoKHR.
type vkPipelineInfoKHR struct {
	sType    uint32
	_        [4]byte
	pNext    unsafe.Pointer
	pipeline uint64
}

// vkPipelineExecutablePropertiesKHR mirrors C VkPipelineExecutablePropertiesKHR.
type vkPipelineExecutablePropertiesKHR struct {
	sType        uint32
	_            [4]byte
	pNext        unsafe.Pointer
	stages       uint32
	name         [256]byte
	description  [256]byte
	subgroupSize uint32
}

// vkPipelineExecutableInfoKHR mirrors C VkPipelineExecutableInfoKHR.
type vkPipelineExecutableInfoKHR struct {
	sType           uint32
	_               [4]byte
	pNext           unsafe.Pointer
	pipeline        uint64
	executableIndex uint32
	_               [4]byte
}

// vkPipelineExecutableInternalRepresentationKHR mirrors C
// VkPipelineExecutableInternalRepresentationKHR.
type vkPipelineExecutableInternalRepresentationKHR struct {
	sType       uint32
	_           [4]byte
	pNext       unsafe.Pointer
	name        [256]byte
	description [256]byte
	isText      uint32
	_           [4]byte
	dataSize    uintptr
	pData       unsafe.Pointer
}

// vkPipelineExecutableStatisticKHR mirrors C VkPipelineExecutableStatisticKHR;
// value is the C union VkPipelineExecutableStatisticValueKHR (format says
// which member).
type vkPipelineExecutableStatisticKHR struct {
	sType       uint32
	_           [4]byte
	pNext       unsafe.Pointer
	name        [256]byte
	description [256]byte
	format      uint32
	_           [4]byte
	value       uint64
}
