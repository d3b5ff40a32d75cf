package vulkan

import (
	"fmt"
	"runtime"
	"unsafe"
)

// maxStaging caps the host-visible staging buffer; larger transfers go
// through it in chunks so a multi-GiB upload does not double host memory.
// A variable so tests can force chunking.
var maxStaging = 64 << 20

// Buffer is a device-local storage buffer. Host access goes through the
// Device's staging buffer (Upload/Download), which works the same on a
// discrete GPU and on lavapipe.
type Buffer struct {
	d    *Device
	size int
	buf  uint64
	mem  uint64
}

// hostBuffer is a persistently mapped, host-coherent buffer.
type hostBuffer struct {
	buf, mem uint64
	ptr      unsafe.Pointer // C memory from vkMapMemory
	size     int
}

// NewBuffer allocates size bytes of device-local memory usable as a storage
// buffer and as a transfer source/destination. The contents are undefined
// until written (Upload or Fill).
func (d *Device) NewBuffer(size int) (*Buffer, error) {
	if size <= 0 {
		return nil, fmt.Errorf("vulkan: NewBuffer: size %d must be positive", size)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return nil, err
	}
	buf, mem, err := d.allocBuffer(uint64(size),
		bufferUsageStorageBuffer|bufferUsageTransferSrc|bufferUsageTransferDst,
		memoryPropertyDeviceLocal, 0)
	if err != nil {
		return nil, err
	}
	b := &Buffer{d: d, size: size, buf: buf, mem: mem}
	d.buffers[b] = struct{}{}
	return b, nil
}

// allocBuffer creates a buffer and binds fresh memory of a type with the
// need flags (falling back to any allowed type when need is device-local
// only, for drivers without a device-local type).
func (d *Device) allocBuffer(size uint64, usage, need, prefer uint32) (buf, mem uint64, err error) {
	var pn runtime.Pinner
	defer pn.Unpin()
	info := pin(&pn, &vkBufferCreateInfo{sType: stBufferCreateInfo, size: size, usage: usage})
	if err := check("vkCreateBuffer", d.fn.CreateBuffer(d.handle, info, nil, &buf)); err != nil {
		return 0, 0, err
	}
	var req vkMemoryRequirements
	d.fn.GetBufferMemoryRequirements(d.handle, buf, &req)
	typ, ok := d.memoryType(req.memoryTypeBits, need, prefer)
	if !ok && need == memoryPropertyDeviceLocal {
		typ, ok = d.memoryType(req.memoryTypeBits, 0, 0)
	}
	if !ok {
		d.fn.DestroyBuffer(d.handle, buf, nil)
		return 0, 0, fmt.Errorf("vulkan: no memory type with flags %#x for a buffer (allowed types %#x)", need, req.memoryTypeBits)
	}
	ai := pin(&pn, &vkMemoryAllocateInfo{sType: stMemoryAllocateInfo, allocationSize: req.size, memoryTypeIndex: typ})
	if err := check("vkAllocateMemory", d.fn.AllocateMemory(d.handle, ai, nil, &mem)); err != nil {
		d.fn.DestroyBuffer(d.handle, buf, nil)
		return 0, 0, fmt.Errorf("%w (%d bytes)", err, size)
	}
	if err := check("vkBindBufferMemory", d.fn.BindBufferMemory(d.handle, buf, mem, 0)); err != nil {
		d.fn.DestroyBuffer(d.handle, buf, nil)
		d.fn.FreeMemory(d.handle, mem, nil)
		return 0, 0, err
	}
	return buf, mem, nil
}

// stagingFor returns the staging buffer, grown to hold min(n, maxStaging)
// bytes. Callers hold d.mu.
func (d *Device) stagingFor(n int) (*hostBuffer, error) {
	want := min(max(n, 1<<20), maxStaging)
	if d.staging != nil && d.staging.size >= min(n, maxStaging) {
		return d.staging, nil
	}
	if d.staging != nil {
		d.staging.free(d)
		d.staging = nil
	}
	buf, mem, err := d.allocBuffer(uint64(want), bufferUsageTransferSrc|bufferUsageTransferDst,
		memoryPropertyHostVisible|memoryPropertyHostCoherent, memoryPropertyHostCached)
	if err != nil {
		return nil, err
	}
	h := &hostBuffer{buf: buf, mem: mem, size: want}
	if err := check("vkMapMemory", d.fn.MapMemory(d.handle, mem, 0, wholeSize, 0, &h.ptr)); err != nil {
		h.free(d)
		return nil, err
	}
	d.staging = h
	return h, nil
}

func (h *hostBuffer) bytes() []byte { return unsafe.Slice((*byte)(h.ptr), h.size) }

func (h *hostBuffer) free(d *Device) {
	if h.ptr != nil {
		d.fn.UnmapMemory(d.handle, h.mem)
	}
	d.fn.DestroyBuffer(d.handle, h.buf, nil)
	d.fn.FreeMemory(d.handle, h.mem, nil)
}

// Size is the size given to NewBuffer.
func (b *Buffer) Size() int { return b.size }

// live reports why b cannot be used, or nil. Callers hold b.d.mu.
func (b *Buffer) live() error {
	if err := b.d.usable(); err != nil {
		return err
	}
	if b.buf == 0 {
		return errClosed
	}
	return nil
}

// Upload copies data to the start of the buffer.
func (b *Buffer) Upload(data []byte) error {
	if len(data) > b.size {
		return fmt.Errorf("vulkan: Upload of %d bytes into a %d-byte buffer", len(data), b.size)
	}
	d := b.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := b.live(); err != nil {
		return err
	}
	for off := 0; off < len(data); {
		st, err := d.stagingFor(len(data) - off)
		if err != nil {
			return err
		}
		n := copy(st.bytes(), data[off:])
		// Host writes to coherent memory before vkQueueSubmit are visible to
		// the device without a barrier.
		err = d.submit(func(cb uintptr) error {
			d.copyBuffer(cb, st.buf, b.buf, 0, uint64(off), uint64(n))
			return nil
		})
		if err != nil {
			return err
		}
		off += n
	}
	return nil
}

// Download copies the start of the buffer into dst.
func (b *Buffer) Download(dst []byte) error {
	if len(dst) > b.size {
		return fmt.Errorf("vulkan: Download of %d bytes from a %d-byte buffer", len(dst), b.size)
	}
	d := b.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := b.live(); err != nil {
		return err
	}
	for off := 0; off < len(dst); {
		st, err := d.stagingFor(len(dst) - off)
		if err != nil {
			return err
		}
		n := min(st.size, len(dst)-off)
		err = d.submit(func(cb uintptr) error {
			d.copyBuffer(cb, b.buf, st.buf, uint64(off), 0, uint64(n))
			// Make the transfer write visible to host reads after the fence.
			d.memoryBarrier(cb, pipelineStageTransfer, accessTransferWrite, pipelineStageHost, accessHostRead)
			return nil
		})
		if err != nil {
			return err
		}
		copy(dst[off:off+n], st.bytes())
		off += n
	}
	return nil
}

func (d *Device) copyBuffer(cb uintptr, src, dst uint64, srcOff, dstOff, n uint64) {
	var pn runtime.Pinner
	defer pn.Unpin()
	region := pin(&pn, &vkBufferCopy{srcOffset: srcOff, dstOffset: dstOff, size: n})
	d.fn.CmdCopyBuffer(cb, src, dst, 1, region)
}

// Fill sets every 32-bit word of the buffer to word (vkCmdFillBuffer; a
// trailing partial word, if size%4 != 0, is left alone). Typical uses:
// poison outputs with NaN (0x7fc00000) and zero counters.
func (b *Buffer) Fill(word uint32) error {
	d := b.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := b.live(); err != nil {
		return err
	}
	if b.size < 4 {
		return fmt.Errorf("vulkan: Fill of a %d-byte buffer (needs at least 4 bytes)", b.size)
	}
	return d.submit(func(cb uintptr) error {
		d.fn.CmdFillBuffer(cb, b.buf, 0, wholeSize, word)
		return nil
	})
}

// Free releases the buffer. Calling it twice, or after Device.Close, is
// harmless.
func (b *Buffer) Free() {
	d := b.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if b.buf == 0 {
		return
	}
	b.release()
	delete(d.buffers, b)
}

// release destroys the Vulkan objects. Callers hold d.mu.
func (b *Buffer) release() {
	if b.buf == 0 {
		return
	}
	b.d.fn.DestroyBuffer(b.d.handle, b.buf, nil)
	b.d.fn.FreeMemory(b.d.handle, b.mem, nil)
	b.buf, b.mem = 0, 0
}
