package vulkan

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// loaderNames are the sonames tried in order. libvulkan.so.1 is what the
// runtime package installs; libvulkan.so only exists with the -dev package
// but costs nothing to try. Tests replace this to simulate a missing loader.
var loaderNames = []string{"libvulkan.so.1", "libvulkan.so"}

// globalFuncs are the entry points usable before an instance exists.
type globalFuncs struct {
	GetInstanceProcAddr      func(instance uintptr, name string) uintptr
	EnumerateInstanceVersion func(version *uint32) int32 // nil on a Vulkan 1.0 loader
	CreateInstance           func(info *vkInstanceCreateInfo, alloc unsafe.Pointer, instance *uintptr) int32
}

// instanceFuncs are resolved through vkGetInstanceProcAddr(instance, ...).
// Field names are the Vulkan names without the "vk" prefix (bind adds it).
type instanceFuncs struct {
	DestroyInstance                        func(instance uintptr, alloc unsafe.Pointer)
	EnumeratePhysicalDevices               func(instance uintptr, count *uint32, devs *uintptr) int32
	GetPhysicalDeviceProperties            func(pd uintptr, props *vkPhysicalDeviceProperties)
	GetPhysicalDeviceProperties2           func(pd uintptr, props *vkPhysicalDeviceProperties2)
	GetPhysicalDeviceFeatures2             func(pd uintptr, feats *vkPhysicalDeviceFeatures2)
	GetPhysicalDeviceQueueFamilyProperties func(pd uintptr, count *uint32, props *vkQueueFamilyProperties)
	GetPhysicalDeviceMemoryProperties      func(pd uintptr, props *vkPhysicalDeviceMemoryProperties)
	EnumerateDeviceExtensionProperties     func(pd uintptr, layer *byte, count *uint32, props *vkExtensionProperties) int32
	CreateDevice                           func(pd uintptr, info *vkDeviceCreateInfo, alloc unsafe.Pointer, dev *uintptr) int32
	GetDeviceProcAddr                      func(dev uintptr, name string) uintptr
}

// deviceFuncs are resolved through vkGetDeviceProcAddr, which returns the
// driver's entry points directly and skips the loader's dispatch trampoline.
type deviceFuncs struct {
	DestroyDevice               func(dev uintptr, alloc unsafe.Pointer)
	GetDeviceQueue              func(dev uintptr, family, index uint32, queue *uintptr)
	DeviceWaitIdle              func(dev uintptr) int32
	CreateBuffer                func(dev uintptr, info *vkBufferCreateInfo, alloc unsafe.Pointer, buf *uint64) int32
	DestroyBuffer               func(dev uintptr, buf uint64, alloc unsafe.Pointer)
	GetBufferMemoryRequirements func(dev uintptr, buf uint64, req *vkMemoryRequirements)
	AllocateMemory              func(dev uintptr, info *vkMemoryAllocateInfo, alloc unsafe.Pointer, mem *uint64) int32
	FreeMemory                  func(dev uintptr, mem uint64, alloc unsafe.Pointer)
	BindBufferMemory            func(dev uintptr, buf, mem, offset uint64) int32
	MapMemory                   func(dev uintptr, mem, offset, size uint64, flags uint32, data *unsafe.Pointer) int32
	UnmapMemory                 func(dev uintptr, mem uint64)
	CreateCommandPool           func(dev uintptr, info *vkCommandPoolCreateInfo, alloc unsafe.Pointer, pool *uint64) int32
	DestroyCommandPool          func(dev uintptr, pool uint64, alloc unsafe.Pointer)
	AllocateCommandBuffers      func(dev uintptr, info *vkCommandBufferAllocateInfo, cbs *uintptr) int32
	FreeCommandBuffers          func(dev uintptr, pool uint64, count uint32, cbs *uintptr)
	BeginCommandBuffer          func(cb uintptr, info *vkCommandBufferBeginInfo) int32
	EndCommandBuffer            func(cb uintptr) int32
	CmdCopyBuffer               func(cb uintptr, src, dst uint64, count uint32, regions *vkBufferCopy)
	CmdFillBuffer               func(cb uintptr, buf, offset, size uint64, data uint32)
	CmdPipelineBarrier          func(cb uintptr, srcStage, dstStage, depFlags, memCount uint32, mem *vkMemoryBarrier, bufCount uint32, bufs *vkBufferMemoryBarrier, imgCount uint32, imgs unsafe.Pointer)
	CmdBindPipeline             func(cb uintptr, bindPoint uint32, pipeline uint64)
	CmdBindDescriptorSets       func(cb uintptr, bindPoint uint32, layout uint64, firstSet, count uint32, sets *uint64, dynCount uint32, dyn *uint32)
	CmdPushConstants            func(cb uintptr, layout uint64, stages, offset, size uint32, values unsafe.Pointer)
	CmdDispatch                 func(cb uintptr, x, y, z uint32)
	CmdWriteTimestamp           func(cb uintptr, stage uint32, pool uint64, query uint32)
	CmdResetQueryPool           func(cb uintptr, pool uint64, first, count uint32)
	CreateFence                 func(dev uintptr, info *vkFenceCreateInfo, alloc unsafe.Pointer, fence *uint64) int32
	DestroyFence                func(dev uintptr, fence uint64, alloc unsafe.Pointer)
	ResetFences                 func(dev uintptr, count uint32, fences *uint64) int32
	WaitForFences               func(dev uintptr, count uint32, fences *uint64, waitAll uint32, timeout uint64) int32
	QueueSubmit                 func(queue uintptr, count uint32, submits *vkSubmitInfo, fence uint64) int32
	CreateShaderModule          func(dev uintptr, info *vkShaderModuleCreateInfo, alloc unsafe.Pointer, mod *uint64) int32
	DestroyShaderModule         func(dev uintptr, mod uint64, alloc unsafe.Pointer)
	CreateDescriptorSetLayout   func(dev uintptr, info *vkDescriptorSetLayoutCreateInfo, alloc unsafe.Pointer, layout *uint64) int32
	DestroyDescriptorSetLayout  func(dev uintptr, layout uint64, alloc unsafe.Pointer)
	CreatePipelineLayout        func(dev uintptr, info *vkPipelineLayoutCreateInfo, alloc unsafe.Pointer, layout *uint64) int32
	DestroyPipelineLayout       func(dev uintptr, layout uint64, alloc unsafe.Pointer)
	CreateComputePipelines      func(dev uintptr, cache uint64, count uint32, infos *vkComputePipelineCreateInfo, alloc unsafe.Pointer, pipes *uint64) int32
	DestroyPipeline             func(dev uintptr, pipe uint64, alloc unsafe.Pointer)
	CreateDescriptorPool        func(dev uintptr, info *vkDescriptorPoolCreateInfo, alloc unsafe.Pointer, pool *uint64) int32
	DestroyDescriptorPool       func(dev uintptr, pool uint64, alloc unsafe.Pointer)
	ResetDescriptorPool         func(dev uintptr, pool uint64, flags uint32) int32
	AllocateDescriptorSets      func(dev uintptr, info *vkDescriptorSetAllocateInfo, sets *uint64) int32
	UpdateDescriptorSets        func(dev uintptr, writeCount uint32, writes *vkWriteDescriptorSet, copyCount uint32, copies unsafe.Pointer)
	CreateQueryPool             func(dev uintptr, info *vkQueryPoolCreateInfo, alloc unsafe.Pointer, pool *uint64) int32
	DestroyQueryPool            func(dev uintptr, pool uint64, alloc unsafe.Pointer)
	GetQueryPoolResults         func(dev uintptr, pool uint64, first, count uint32, dataSize uintptr, data unsafe.Pointer, stride uint64, flags uint32) int32
}

var loaded struct {
	sync.Mutex
	byName map[string]*globalFuncs // one dlopen per soname for the process
}

// loadGlobal dlopens the loader (once per soname; it is never closed because
// drivers may keep threads and atexit handlers inside it) and binds the
// global entry points.
func loadGlobal() (*globalFuncs, error) {
	loaded.Lock()
	defer loaded.Unlock()
	var reasons []string
	for _, name := range loaderNames {
		if g := loaded.byName[name]; g != nil {
			return g, nil
		}
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err != nil {
			reasons = append(reasons, err.Error())
			continue
		}
		sym, err := purego.Dlsym(h, "vkGetInstanceProcAddr")
		if err != nil || sym == 0 {
			reasons = append(reasons, name+" has no vkGetInstanceProcAddr")
			continue
		}
		g := &globalFuncs{}
		purego.RegisterFunc(&g.GetInstanceProcAddr, sym)
		if p := g.GetInstanceProcAddr(0, "vkEnumerateInstanceVersion"); p != 0 {
			purego.RegisterFunc(&g.EnumerateInstanceVersion, p)
		}
		p := g.GetInstanceProcAddr(0, "vkCreateInstance")
		if p == 0 {
			reasons = append(reasons, name+": vkGetInstanceProcAddr(NULL, vkCreateInstance) returned NULL")
			continue
		}
		purego.RegisterFunc(&g.CreateInstance, p)
		if loaded.byName == nil {
			loaded.byName = map[string]*globalFuncs{}
		}
		loaded.byName[name] = g
		return g, nil
	}
	return nil, fmt.Errorf("%w: cannot load %s (%s); %s",
		ErrNoLoader, strings.Join(loaderNames, " or "), strings.Join(reasons, "; "), installHint)
}

// bind fills every func field of *table from resolve("vk"+FieldName) and
// fails naming the first entry point the driver does not provide.
func bind(table any, resolve func(name string) uintptr) error {
	v := reflect.ValueOf(table).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name := "vk" + t.Field(i).Name
		p := resolve(name)
		if p == 0 {
			return fmt.Errorf("vulkan: driver does not provide %s", name)
		}
		purego.RegisterFunc(v.Field(i).Addr().Interface(), p)
	}
	return nil
}

// pin pins *v for the lifetime of p and returns v, so that a struct handed
// to Vulkan may point at it.
func pin[T any](p *runtime.Pinner, v *T) *T {
	p.Pin(v)
	return v
}

// pinSlice pins the backing array of s and returns a pointer to its first
// element, or nil for an empty slice (Vulkan wants NULL with count 0).
func pinSlice[T any](p *runtime.Pinner, s []T) *T {
	if len(s) == 0 {
		return nil
	}
	p.Pin(&s[0])
	return &s[0]
}

// cstr returns a pinned NUL-terminated copy of s.
func cstr(p *runtime.Pinner, s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return pinSlice(p, b)
}

// gostr converts a fixed-size NUL-terminated C char array.
func gostr(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
