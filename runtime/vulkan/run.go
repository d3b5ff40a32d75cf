package vulkan

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Dispatch is one vkCmdDispatch: Buffers bind to set 0, bindings 0..n-1 in
// order; Push must be exactly the pipeline's push-constant size.
type Dispatch struct {
	Pipeline *Pipeline
	Buffers  []*Buffer
	Push     []byte
	Groups   [3]uint32
}

// Run records the dispatches into one command buffer, separated by
// compute-to-compute buffer barriers so each dispatch sees the writes of
// the ones before it, submits it and waits for completion.
func (d *Device) Run(ds ...Dispatch) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	if err := d.validate(ds); err != nil {
		return err
	}
	sets, err := d.allocSets(ds)
	if err != nil {
		return err
	}
	defer d.desc.reset(d)
	return d.submit(func(cb uintptr) error {
		d.recordDispatches(cb, ds, sets, false)
		return nil
	})
}

// Time records reps repetitions of the dispatch list in one command buffer,
// with a timestamp between repetitions, and returns the duration of each
// repetition in nanoseconds. Repetitions are separated by the same barrier
// as dispatches, so they do not overlap. The first repetition usually
// includes warm-up (cold caches, lazy driver work); callers typically drop
// it or take the median.
func (d *Device) Time(ds []Dispatch, reps int) ([]float64, error) {
	if reps < 1 {
		return nil, fmt.Errorf("vulkan: Time: reps %d must be at least 1", reps)
	}
	if len(ds) == 0 {
		return nil, fmt.Errorf("vulkan: Time: no dispatches")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return nil, err
	}
	bits := d.info.TimestampValidBits
	if bits == 0 || d.info.TimestampPeriod <= 0 {
		return nil, fmt.Errorf("vulkan: Time: device %q does not support timestamps on queue family %d (timestampValidBits %d, timestampPeriod %g)",
			d.info.Name, d.info.QueueFamily, bits, d.info.TimestampPeriod)
	}
	if err := d.validate(ds); err != nil {
		return nil, err
	}
	sets, err := d.allocSets(ds)
	if err != nil {
		return nil, err
	}
	defer d.desc.reset(d)

	nq := uint32(reps + 1)
	var pool uint64
	{
		var pn runtime.Pinner
		qi := pin(&pn, &vkQueryPoolCreateInfo{sType: stQueryPoolCreateInfo, queryType: queryTypeTimestamp, queryCount: nq})
		err := check("vkCreateQueryPool", d.fn.CreateQueryPool(d.handle, qi, nil, &pool))
		pn.Unpin()
		if err != nil {
			return nil, err
		}
	}
	defer func() {
		if d.lost == nil { // the GPU might still write to it otherwise
			d.fn.DestroyQueryPool(d.handle, pool, nil)
		}
	}()

	err = d.submit(func(cb uintptr) error {
		d.fn.CmdResetQueryPool(cb, pool, 0, nq)
		d.fn.CmdWriteTimestamp(cb, pipelineStageTopOfPipe, pool, 0)
		for r := 0; r < reps; r++ {
			d.recordDispatches(cb, ds, sets, r > 0)
			// BOTTOM_OF_PIPE: written once everything recorded before,
			// i.e. this repetition, has finished.
			d.fn.CmdWriteTimestamp(cb, pipelineStageBottomOfPipe, pool, uint32(r+1))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ticks := make([]uint64, nq)
	r := d.fn.GetQueryPoolResults(d.handle, pool, 0, nq, uintptr(8*nq), unsafe.Pointer(&ticks[0]), 8, queryResult64|queryResultWait)
	if err := check("vkGetQueryPoolResults", r); err != nil {
		return nil, err
	}
	mask := ^uint64(0)
	if bits < 64 {
		mask = 1<<bits - 1
	}
	ns := make([]float64, reps)
	for k := range ns {
		// Subtracting under the mask handles a counter that wrapped.
		ns[k] = float64((ticks[k+1]-ticks[k])&mask) * float64(d.info.TimestampPeriod)
	}
	return ns, nil
}

// TimeHost submits reps command buffers, each recording the dispatch list
// once (a barrier between dispatches, as Run), and returns each one's host
// wall clock in nanoseconds: from just before vkQueueSubmit to the return
// of the fence wait, recording excluded. This is how a host that submits a
// graph of many dispatches and waits sees it (ggml's test-backend-ops
// times a graph so); divide by the dispatches for a time per dispatch.
func (d *Device) TimeHost(ds []Dispatch, reps int) ([]float64, error) {
	if reps < 1 {
		return nil, fmt.Errorf("vulkan: TimeHost: reps %d must be at least 1", reps)
	}
	if len(ds) == 0 {
		return nil, fmt.Errorf("vulkan: TimeHost: no dispatches")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return nil, err
	}
	if err := d.validate(ds); err != nil {
		return nil, err
	}
	sets, err := d.allocSets(ds)
	if err != nil {
		return nil, err
	}
	defer d.desc.reset(d)
	ns := make([]float64, reps)
	for r := range ns {
		el, err := d.submitTimed(func(cb uintptr) error {
			d.recordDispatches(cb, ds, sets, false)
			return nil
		})
		if err != nil {
			return nil, err
		}
		ns[r] = float64(el.Nanoseconds())
	}
	return ns, nil
}

// validate checks everything the driver would not check (or would crash
// on) before anything is recorded. Callers hold d.mu.
func (d *Device) validate(ds []Dispatch) error {
	for k, x := range ds {
		p := x.Pipeline
		switch {
		case p == nil:
			return fmt.Errorf("vulkan: dispatch %d: nil Pipeline", k)
		case p.d != d:
			return fmt.Errorf("vulkan: dispatch %d: Pipeline belongs to another Device", k)
		case p.pipeline == 0:
			return fmt.Errorf("vulkan: dispatch %d: Pipeline was destroyed", k)
		case len(x.Buffers) != p.numBuffers:
			return fmt.Errorf("vulkan: dispatch %d: %d buffers given, pipeline has %d bindings", k, len(x.Buffers), p.numBuffers)
		case len(x.Push) != p.pushSize:
			return fmt.Errorf("vulkan: dispatch %d: %d push-constant bytes given, pipeline takes %d", k, len(x.Push), p.pushSize)
		}
		for j, b := range x.Buffers {
			switch {
			case b == nil:
				return fmt.Errorf("vulkan: dispatch %d: buffer %d is nil", k, j)
			case b.d != d:
				return fmt.Errorf("vulkan: dispatch %d: buffer %d belongs to another Device", k, j)
			case b.buf == 0:
				return fmt.Errorf("vulkan: dispatch %d: buffer %d was freed", k, j)
			case uint64(b.size) > uint64(d.info.MaxStorageBufferRange):
				return fmt.Errorf("vulkan: dispatch %d: buffer %d is %d bytes, over maxStorageBufferRange %d", k, j, b.size, d.info.MaxStorageBufferRange)
			}
		}
		for a, n := range x.Groups {
			if n > d.info.MaxWorkgroupCount[a] {
				return fmt.Errorf("vulkan: dispatch %d: Groups[%d] = %d exceeds maxComputeWorkGroupCount[%d] = %d",
					k, a, n, a, d.info.MaxWorkgroupCount[a])
			}
		}
	}
	return nil
}

// recordDispatches records ds. A barrier precedes every dispatch except the
// first one when barrierFirst is false; it covers the buffers of the
// dispatch before (earlier ones were covered by earlier barriers, whose
// destination scope includes every later dispatch).
func (d *Device) recordDispatches(cb uintptr, ds []Dispatch, sets []uint64, barrierFirst bool) {
	var pn runtime.Pinner
	defer pn.Unpin()
	prev := &ds[len(ds)-1] // the dispatch before ds[0] when repeating
	var bound *Pipeline
	for k := range ds {
		x := &ds[k]
		if k > 0 || barrierFirst {
			d.dispatchBarrier(cb, prev.Buffers)
		}
		prev = x
		p := x.Pipeline
		if p != bound {
			d.fn.CmdBindPipeline(cb, pipelineBindPointCompute, p.pipeline)
			bound = p
		}
		if sets[k] != 0 {
			d.fn.CmdBindDescriptorSets(cb, pipelineBindPointCompute, p.layout, 0, 1, pin(&pn, &sets[k]), 0, nil)
		}
		if len(x.Push) > 0 {
			d.fn.CmdPushConstants(cb, p.layout, shaderStageCompute, 0, uint32(len(x.Push)), unsafe.Pointer(&x.Push[0]))
		}
		d.fn.CmdDispatch(cb, x.Groups[0], x.Groups[1], x.Groups[2])
	}
}

// dispatchBarrier makes shader writes to bufs visible to later dispatches
// (and orders later writes after earlier reads: the execution dependency
// alone covers write-after-read).
func (d *Device) dispatchBarrier(cb uintptr, bufs []*Buffer) {
	var pn runtime.Pinner
	defer pn.Unpin()
	barriers := make([]vkBufferMemoryBarrier, 0, len(bufs))
	seen := make(map[*Buffer]bool, len(bufs))
	for _, b := range bufs {
		if seen[b] {
			continue
		}
		seen[b] = true
		barriers = append(barriers, vkBufferMemoryBarrier{
			sType:               stBufferMemoryBarrier,
			srcAccessMask:       accessShaderWrite,
			dstAccessMask:       accessShaderRead | accessShaderWrite,
			srcQueueFamilyIndex: queueFamilyIgnored,
			dstQueueFamilyIndex: queueFamilyIgnored,
			buffer:              b.buf,
			offset:              0,
			size:                wholeSize,
		})
	}
	d.fn.CmdPipelineBarrier(cb, pipelineStageComputeShader, pipelineStageComputeShader, 0,
		0, nil, uint32(len(barriers)), pinSlice(&pn, barriers), 0, nil)
}

// descriptorPool is reused across Runs: reset after each one, and replaced
// by a larger one when a Run needs more sets or descriptors than it holds.
type descriptorPool struct {
	pool        uint64
	sets, descs int
}

func (dp *descriptorPool) ensure(d *Device, sets, descs int) error {
	if dp.pool != 0 && dp.sets >= sets && dp.descs >= descs {
		return nil
	}
	dp.destroy(d)
	sets, descs = max(sets, 2*dp.sets, 16), max(descs, 2*dp.descs, 64)
	var pn runtime.Pinner
	defer pn.Unpin()
	size := pin(&pn, &vkDescriptorPoolSize{type_: descriptorTypeStorageBuffer, descriptorCount: uint32(descs)})
	ci := pin(&pn, &vkDescriptorPoolCreateInfo{
		sType:         stDescriptorPoolCreateInfo,
		maxSets:       uint32(sets),
		poolSizeCount: 1,
		pPoolSizes:    size,
	})
	if err := check("vkCreateDescriptorPool", d.fn.CreateDescriptorPool(d.handle, ci, nil, &dp.pool)); err != nil {
		dp.pool = 0
		return err
	}
	dp.sets, dp.descs = sets, descs
	return nil
}

// reset returns all sets to the pool once the GPU is done with them.
func (dp *descriptorPool) reset(d *Device) {
	if dp.pool != 0 && d.lost == nil {
		d.fn.ResetDescriptorPool(d.handle, dp.pool, 0)
	}
}

func (dp *descriptorPool) destroy(d *Device) {
	if dp.pool != 0 {
		d.fn.DestroyDescriptorPool(d.handle, dp.pool, nil)
	}
	dp.pool = 0
}

// allocSets allocates and writes one descriptor set per dispatch that binds
// buffers; sets[k] is 0 for a dispatch without buffers.
func (d *Device) allocSets(ds []Dispatch) ([]uint64, error) {
	sets := make([]uint64, len(ds))
	var layouts []uint64
	ndesc := 0
	for _, x := range ds {
		if len(x.Buffers) > 0 {
			layouts = append(layouts, x.Pipeline.setLayout)
			ndesc += len(x.Buffers)
		}
	}
	if len(layouts) == 0 {
		return sets, nil
	}
	if err := d.desc.ensure(d, len(layouts), ndesc); err != nil {
		return nil, err
	}
	var pn runtime.Pinner
	defer pn.Unpin()
	got := make([]uint64, len(layouts))
	ai := pin(&pn, &vkDescriptorSetAllocateInfo{
		sType:              stDescriptorSetAllocateInfo,
		descriptorPool:     d.desc.pool,
		descriptorSetCount: uint32(len(layouts)),
		pSetLayouts:        pinSlice(&pn, layouts),
	})
	if err := check("vkAllocateDescriptorSets", d.fn.AllocateDescriptorSets(d.handle, ai, pinSlice(&pn, got))); err != nil {
		d.desc.reset(d)
		return nil, err
	}
	infos := make([]vkDescriptorBufferInfo, ndesc)
	writes := make([]vkWriteDescriptorSet, ndesc)
	pinSlice(&pn, infos)
	n, s := 0, 0
	for k, x := range ds {
		if len(x.Buffers) == 0 {
			continue
		}
		sets[k] = got[s]
		s++
		for j, b := range x.Buffers {
			infos[n] = vkDescriptorBufferInfo{buffer: b.buf, range_: wholeSize}
			writes[n] = vkWriteDescriptorSet{
				sType:           stWriteDescriptorSet,
				dstSet:          sets[k],
				dstBinding:      uint32(j),
				descriptorCount: 1,
				descriptorType:  descriptorTypeStorageBuffer,
				pBufferInfo:     &infos[n],
			}
			n++
		}
	}
	d.fn.UpdateDescriptorSets(d.handle, uint32(n), pinSlice(&pn, writes), 0, nil)
	return sets, nil
}
