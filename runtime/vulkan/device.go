package vulkan

import (
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
)

// DefaultTimeout bounds each wait for the GPU; see Device.SetTimeout.
const DefaultTimeout = 2 * time.Minute

// Device is a logical device with one compute queue. All methods are safe
// for concurrent use: one mutex serialises queue work, which is what Vulkan
// requires for the queue, command pool and descriptor pool anyway.
type Device struct {
	inst   *Instance
	pd     *physDevice
	info   DeviceInfo
	fn     deviceFuncs
	handle uintptr
	queue  uintptr

	mu        sync.Mutex
	closed    bool
	lost      error // set once the device is lost or a wait timed out
	timeout   time.Duration
	cmdPool   uint64
	fence     uint64
	desc      descriptorPool
	staging   *hostBuffer
	buffers   map[*Buffer]struct{}
	pipelines map[*Pipeline]struct{}
	// stats: VK_KHR_pipeline_executable_properties' entry points (nil
	// without the feature); capture: pipelines built from now on keep
	// their statistics (CaptureStatistics).
	stats   *statsFuncs
	capture bool
	// captureIR: pipelines built now keep the driver's internal
	// representations (CaptureInternalRepresentations).
	captureIR bool
}

// OpenDevice creates a logical device on physical device index (as listed
// by Devices) with one queue of the first compute-capable family, enabling
// every optional shader feature below that the device supports.
func (i *Instance) OpenDevice(index int) (*Device, error) {
	i.mu.Lock()
	closed := i.closed
	i.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	if index < 0 || index >= len(i.phys) {
		return nil, fmt.Errorf("vulkan: device index %d out of range (%d devices)", index, len(i.phys))
	}
	pd := i.phys[index]
	if pd.info.QueueFamily < 0 {
		return nil, fmt.Errorf("%w: device %d (%s) has no compute queue", ErrNoDevice, index, pd.info.Name)
	}
	d := &Device{
		inst:      i,
		pd:        pd,
		info:      pd.info,
		timeout:   DefaultTimeout,
		buffers:   map[*Buffer]struct{}{},
		pipelines: map[*Pipeline]struct{}{},
	}
	if err := d.create(); err != nil {
		return nil, err
	}
	if err := d.init(); err != nil {
		d.destroy()
		return nil, err
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		d.destroy()
		return nil, errClosed
	}
	i.devices[d] = struct{}{}
	return d, nil
}

// enable maps a supported feature (have != 0) to VK_TRUE.
func enable(have uint32) uint32 {
	if have != 0 {
		return 1
	}
	return 0
}

func (d *Device) create() error {
	pd, fn := d.pd, &d.inst.fn
	var pn runtime.Pinner
	defer pn.Unpin()

	// Enable only features that were reported, since requesting an
	// unsupported one fails vkCreateDevice with VK_ERROR_FEATURE_NOT_PRESENT.
	feats := pin(&pn, &vkPhysicalDeviceFeatures2{sType: stPhysicalDeviceFeatures2})
	feats.features.shaderInt16 = enable(pd.core.shaderInt16)
	feats.features.shaderInt64 = enable(pd.core.shaderInt64)
	feats.features.shaderFloat64 = enable(pd.core.shaderFloat64)
	if d.info.APIVersion&^0xfff >= apiVersion12 {
		f11 := pin(&pn, &vkPhysicalDeviceVulkan11Features{sType: stPhysicalDeviceVulkan11Features})
		f11.storageBuffer16BitAccess = enable(pd.f11.storageBuffer16BitAccess)
		f11.uniformAndStorageBuffer16BitAccess = enable(pd.f11.uniformAndStorageBuffer16BitAccess)
		f11.storagePushConstant16 = enable(pd.f11.storagePushConstant16)
		f12 := pin(&pn, &vkPhysicalDeviceVulkan12Features{sType: stPhysicalDeviceVulkan12Features})
		f12.shaderFloat16 = enable(pd.f12.shaderFloat16)
		f12.shaderInt8 = enable(pd.f12.shaderInt8)
		f12.storageBuffer8BitAccess = enable(pd.f12.storageBuffer8BitAccess)
		f12.uniformAndStorageBuffer8BitAccess = enable(pd.f12.uniformAndStorageBuffer8BitAccess)
		f12.storagePushConstant8 = enable(pd.f12.storagePushConstant8)
		f12.shaderSubgroupExtendedTypes = enable(pd.f12.shaderSubgroupExtendedTypes)
		f12.scalarBlockLayout = enable(pd.f12.scalarBlockLayout)
		feats.pNext = unsafe.Pointer(f11)
		f11.pNext = unsafe.Pointer(f12)
		if d.info.APIVersion&^0xfff >= apiVersion13 && pd.idot != 0 {
			idot := pin(&pn, &vkPhysicalDeviceShaderIntegerDotProductFeatures{sType: stPhysicalDeviceIntegerDotFeatures})
			idot.shaderIntegerDotProduct = 1
			f12.pNext = unsafe.Pointer(idot)
		}
	}
	var exts []*byte
	if pd.coopNV != 0 { // VK_NV_cooperative_matrix: the extension and its feature
		coop := pin(&pn, &vkPhysicalDeviceCooperativeMatrixFeaturesNV{sType: stPhysicalDeviceCoopMatrixFeaturesNV, cooperativeMatrix: 1})
		coop.pNext = feats.pNext
		feats.pNext = unsafe.Pointer(coop)
		exts = append(exts, cstr(&pn, "VK_NV_cooperative_matrix"))
	}
	if pd.execInfo != 0 { // VK_KHR_pipeline_executable_properties: Pipeline.Statistics
		exec := pin(&pn, &vkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR{sType: stPhysicalDeviceExecPropsFeatures, pipelineExecutableInfo: 1})
		exec.pNext = feats.pNext
		feats.pNext = unsafe.Pointer(exec)
		exts = append(exts, cstr(&pn, "VK_KHR_pipeline_executable_properties"))
	}
	prio := pin(&pn, new(float32(1)))
	queue := pin(&pn, &vkDeviceQueueCreateInfo{
		sType:            stDeviceQueueCreateInfo,
		queueFamilyIndex: uint32(d.info.QueueFamily),
		queueCount:       1,
		pQueuePriorities: prio,
	})
	info := pin(&pn, &vkDeviceCreateInfo{
		sType:                   stDeviceCreateInfo,
		pNext:                   unsafe.Pointer(feats),
		queueCreateInfoCount:    1,
		pQueueCreateInfos:       queue,
		enabledExtensionCount:   uint32(len(exts)),
		ppEnabledExtensionNames: pinSlice(&pn, exts),
	})
	return check("vkCreateDevice", fn.CreateDevice(pd.handle, info, nil, &d.handle))
}

// init binds the device functions and creates the queue-side objects.
func (d *Device) init() error {
	gdpa := d.inst.fn.GetDeviceProcAddr
	if err := bind(&d.fn, func(name string) uintptr { return gdpa(d.handle, name) }); err != nil {
		return err
	}
	d.fn.GetDeviceQueue(d.handle, uint32(d.info.QueueFamily), 0, &d.queue)
	if d.pd.execInfo != 0 {
		var sf statsFuncs
		if err := bind(&sf, func(name string) uintptr { return gdpa(d.handle, name) }); err != nil {
			return err
		}
		d.stats = &sf
	}

	var pn runtime.Pinner
	defer pn.Unpin()
	pool := pin(&pn, &vkCommandPoolCreateInfo{
		sType:            stCommandPoolCreateInfo,
		flags:            0x1, // VK_COMMAND_POOL_CREATE_TRANSIENT_BIT: buffers are short-lived
		queueFamilyIndex: uint32(d.info.QueueFamily),
	})
	if err := check("vkCreateCommandPool", d.fn.CreateCommandPool(d.handle, pool, nil, &d.cmdPool)); err != nil {
		return err
	}
	fence := pin(&pn, &vkFenceCreateInfo{sType: stFenceCreateInfo})
	return check("vkCreateFence", d.fn.CreateFence(d.handle, fence, nil, &d.fence))
}

// Info describes the physical device behind d.
func (d *Device) Info() DeviceInfo { return d.info }

// SetTimeout bounds how long Run, Time and transfers wait for the GPU (0 or
// less: no limit). When
// a wait times out the Device is treated as lost: every later call fails.
func (d *Device) SetTimeout(t time.Duration) {
	d.mu.Lock()
	d.timeout = t
	d.mu.Unlock()
}

// Close waits for the GPU, frees every Buffer and Pipeline still alive and
// destroys the device. Calling it twice is harmless.
func (d *Device) Close() {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	d.closed = true
	d.destroy()
	d.mu.Unlock()

	d.inst.mu.Lock()
	delete(d.inst.devices, d)
	d.inst.mu.Unlock()
}

// destroy releases everything d created; it tolerates a half-built Device.
func (d *Device) destroy() {
	if d.handle == 0 {
		return
	}
	if d.fn.DestroyDevice == nil { // bind failed before anything was created
		if p := d.inst.fn.GetDeviceProcAddr(d.handle, "vkDestroyDevice"); p != 0 {
			purego.RegisterFunc(&d.fn.DestroyDevice, p)
			d.fn.DestroyDevice(d.handle, nil)
		}
		d.handle = 0
		return
	}
	if d.fn.DeviceWaitIdle != nil {
		d.fn.DeviceWaitIdle(d.handle) // best effort: a lost device returns an error we cannot act on
	}
	for b := range d.buffers {
		b.release()
	}
	for p := range d.pipelines {
		p.release()
	}
	d.desc.destroy(d)
	if d.staging != nil {
		d.staging.free(d)
		d.staging = nil
	}
	if d.fence != 0 {
		d.fn.DestroyFence(d.handle, d.fence, nil)
	}
	if d.cmdPool != 0 {
		d.fn.DestroyCommandPool(d.handle, d.cmdPool, nil)
	}
	d.fn.DestroyDevice(d.handle, nil)
	d.handle = 0
}

// usable reports why d cannot take work, or nil. Callers hold d.mu.
func (d *Device) usable() error {
	if d.closed {
		return errClosed
	}
	return d.lost
}

// submit records one command buffer with record, submits it and waits for
// it. Callers hold d.mu. Every command buffer starts with a global barrier
// so that writes from earlier submissions (shader or transfer) are visible
// to this one; a fence wait alone does not guarantee that.
func (d *Device) submit(record func(cb uintptr) error) error {
	_, err := d.submitTimed(record)
	return err
}

// submitTimed is submit, also returning the host wall clock from just
// before vkQueueSubmit to the return of the fence wait (recording excluded).
func (d *Device) submitTimed(record func(cb uintptr) error) (time.Duration, error) {
	if err := d.usable(); err != nil {
		return 0, err
	}
	var pn runtime.Pinner
	defer pn.Unpin()
	alloc := pin(&pn, &vkCommandBufferAllocateInfo{
		sType:              stCommandBufferAllocateInfo,
		commandPool:        d.cmdPool,
		level:              commandBufferLevelPrimary,
		commandBufferCount: 1,
	})
	cb := pin(&pn, new(uintptr))
	if err := check("vkAllocateCommandBuffers", d.fn.AllocateCommandBuffers(d.handle, alloc, cb)); err != nil {
		return 0, err
	}
	inFlight := false
	defer func() {
		// A command buffer the GPU may still execute must not be freed;
		// that only happens after a lost device or a timeout, so leak it.
		if !inFlight {
			d.fn.FreeCommandBuffers(d.handle, d.cmdPool, 1, cb)
		}
	}()
	begin := pin(&pn, &vkCommandBufferBeginInfo{sType: stCommandBufferBeginInfo, flags: commandBufferUsageOneTimeSubmit})
	if err := check("vkBeginCommandBuffer", d.fn.BeginCommandBuffer(*cb, begin)); err != nil {
		return 0, err
	}
	d.memoryBarrier(*cb,
		pipelineStageTransfer|pipelineStageComputeShader, accessTransferWrite|accessShaderWrite,
		pipelineStageTransfer|pipelineStageComputeShader, accessTransferRead|accessTransferWrite|accessShaderRead|accessShaderWrite)
	if err := record(*cb); err != nil {
		return 0, err
	}
	if err := check("vkEndCommandBuffer", d.fn.EndCommandBuffer(*cb)); err != nil {
		return 0, err
	}
	if err := check("vkResetFences", d.fn.ResetFences(d.handle, 1, &d.fence)); err != nil {
		return 0, err
	}
	start := time.Now()
	si := pin(&pn, &vkSubmitInfo{sType: stSubmitInfo, commandBufferCount: 1, pCommandBuffers: cb})
	if err := check("vkQueueSubmit", d.fn.QueueSubmit(d.queue, 1, si, d.fence)); err != nil {
		if err.(*Error).Result == vkErrorDeviceLost {
			d.lost = err
		}
		return 0, err
	}
	timeout := ^uint64(0) // no limit
	if d.timeout > 0 {
		timeout = uint64(d.timeout.Nanoseconds())
	}
	r := d.fn.WaitForFences(d.handle, 1, &d.fence, 1, timeout)
	switch {
	case r == vkTimeout:
		inFlight = true
		d.lost = fmt.Errorf("%w: vkWaitForFences: VK_TIMEOUT (2) after %v; the device is no longer usable", ErrDeviceLost, d.timeout)
		return 0, d.lost
	case r != vkSuccess:
		inFlight = true
		d.lost = check("vkWaitForFences", r)
		return 0, d.lost
	}
	return time.Since(start), nil
}

// memoryBarrier records a global memory barrier.
func (d *Device) memoryBarrier(cb uintptr, srcStage, srcAccess, dstStage, dstAccess uint32) {
	var pn runtime.Pinner
	defer pn.Unpin()
	b := pin(&pn, &vkMemoryBarrier{sType: stMemoryBarrier, srcAccessMask: srcAccess, dstAccessMask: dstAccess})
	d.fn.CmdPipelineBarrier(cb, srcStage, dstStage, 0, 1, b, 0, nil, 0, nil)
}

// memoryType picks a memory type allowed by bits that has all of need,
// preferring one that also has prefer.
func (d *Device) memoryType(bits, need, prefer uint32) (uint32, bool) {
	mem := &d.pd.mem
	for _, want := range []uint32{need | prefer, need} {
		for k := uint32(0); k < mem.memoryTypeCount && k < uint32(len(mem.memoryTypes)); k++ {
			if bits&(1<<k) != 0 && mem.memoryTypes[k].propertyFlags&want == want {
				return k, true
			}
		}
	}
	return 0, false
}
