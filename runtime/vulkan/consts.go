package vulkan

// Constants from vulkan_core.h. layout_test.go checks each value against the
// header with the C compiler.

// VkStructureType values.
const (
	stApplicationInfo                    = 0
	stInstanceCreateInfo                 = 1
	stDeviceQueueCreateInfo              = 2
	stDeviceCreateInfo                   = 3
	stSubmitInfo                         = 4
	stMemoryAllocateInfo                 = 5
	stFenceCreateInfo                    = 8
	stQueryPoolCreateInfo                = 11
	stBufferCreateInfo                   = 12
	stShaderModuleCreateInfo             = 16
	stPipelineShaderStageCreateInfo      = 18
	stComputePipelineCreateInfo          = 29
	stPipelineLayoutCreateInfo           = 30
	stDescriptorSetLayoutCreateInfo      = 32
	stDescriptorPoolCreateInfo           = 33
	stDescriptorSetAllocateInfo          = 34
	stWriteDescriptorSet                 = 35
	stCommandPoolCreateInfo              = 39
	stCommandBufferAllocateInfo          = 40
	stCommandBufferBeginInfo             = 42
	stBufferMemoryBarrier                = 44
	stMemoryBarrier                      = 46
	stPhysicalDeviceVulkan11Features     = 49
	stPhysicalDeviceVulkan12Features     = 51
	stPhysicalDeviceFeatures2            = 1000059000
	stPhysicalDeviceProperties2          = 1000059001
	stPhysicalDeviceSubgroupProperties   = 1000094000
	stPhysicalDeviceDriverProperties     = 1000196000
	stPhysicalDeviceSubgroupSizeControlP = 1000225000
	stPhysicalDeviceIntegerDotFeatures   = 1000280000
	stPhysicalDeviceCoopMatrixFeaturesNV = 1000249000
	stCooperativeMatrixPropertiesNV      = 1000249001
	stPhysicalDeviceExecPropsFeatures    = 1000269000
	stPipelineInfoKHR                    = 1000269001
	stPipelineExecutablePropertiesKHR    = 1000269002
	stPipelineExecutableInfoKHR          = 1000269003
	stPipelineExecutableStatisticKHR     = 1000269004
	stPipelineExecutableInternalReprKHR  = 1000269005
)

// VK_KHR_pipeline_executable_properties: the pipeline flag that keeps the
// driver's statistics, and the formats of a statistic's value.
const (
	pipelineCreateCaptureStatistics = 0x40
	pipelineCreateCaptureInternal   = 0x80
	statFormatBool32                = 0
	statFormatInt64                 = 1
	statFormatUint64                = 2
	statFormatFloat64               = 3
)

// VkResult values this package names (the full list is in errors.go).
const (
	vkSuccess         = 0
	vkNotReady        = 1
	vkTimeout         = 2
	vkIncomplete      = 5
	vkErrorDeviceLost = -4
)

// Flags, enums and special values.
const (
	apiVersion12 = 1<<22 | 2<<12 // VK_API_VERSION_1_2
	apiVersion13 = 1<<22 | 3<<12 // VK_API_VERSION_1_3

	queueComputeBit = 0x2

	memoryPropertyDeviceLocal  = 0x1
	memoryPropertyHostVisible  = 0x2
	memoryPropertyHostCoherent = 0x4
	memoryPropertyHostCached   = 0x8

	bufferUsageTransferSrc   = 0x1
	bufferUsageTransferDst   = 0x2
	bufferUsageStorageBuffer = 0x20

	commandPoolCreateResetCommandBuffer = 0x2
	commandBufferLevelPrimary           = 0
	commandBufferUsageOneTimeSubmit     = 0x1

	descriptorTypeStorageBuffer = 7
	shaderStageCompute          = 0x20
	pipelineBindPointCompute    = 1

	pipelineStageTopOfPipe     = 0x1
	pipelineStageComputeShader = 0x800
	pipelineStageTransfer      = 0x1000
	pipelineStageBottomOfPipe  = 0x2000
	pipelineStageHost          = 0x4000

	accessShaderRead    = 0x20
	accessShaderWrite   = 0x40
	accessTransferRead  = 0x800
	accessTransferWrite = 0x1000
	accessHostRead      = 0x2000

	queryTypeTimestamp = 2
	queryResult64      = 0x1
	queryResultWait    = 0x2

	subgroupFeatureBasic           = 0x1
	subgroupFeatureVote            = 0x2
	subgroupFeatureArithmetic      = 0x4
	subgroupFeatureBallot          = 0x8
	subgroupFeatureShuffle         = 0x10
	subgroupFeatureShuffleRelative = 0x20
	subgroupFeatureClustered       = 0x40
	subgroupFeatureQuad            = 0x80

	queueFamilyIgnored = ^uint32(0)
	wholeSize          = ^uint64(0)
)

// apiMajor/apiMinor/apiPatch split a packed VK_MAKE_API_VERSION value.
func apiMajor(v uint32) uint32 { return v >> 22 & 0x7f }
func apiMinor(v uint32) uint32 { return v >> 12 & 0x3ff }
func apiPatch(v uint32) uint32 { return v & 0xfff }
