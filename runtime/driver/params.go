package driver

import (
	"fmt"
	"math"
	"runtime"
	"unsafe"
)

// kernelParams is the void** kernelParams array of cuLaunchKernel /
// hipModuleLaunchKernel: ptrs[i] points at argument i's value. Each value
// lives in its own 8-byte, 8-aligned slot (little-endian, in the low bytes
// for 4-byte arguments); the driver reads as many bytes from each pointer as
// the kernel's parameter i has, so a slot never needs to be packed tighter.
type kernelParams struct {
	slots []uint64
	ptrs  []unsafe.Pointer
}

// packParams lays out args: Ptr (8 bytes), int32, uint32 and float32 (4).
func packParams(args []any) (*kernelParams, error) {
	p := &kernelParams{slots: make([]uint64, len(args)), ptrs: make([]unsafe.Pointer, len(args))}
	for i, a := range args {
		switch v := a.(type) {
		case Ptr:
			p.slots[i] = uint64(v)
		case int32:
			p.slots[i] = uint64(uint32(v))
		case uint32:
			p.slots[i] = uint64(v)
		case float32:
			p.slots[i] = uint64(math.Float32bits(v))
		default:
			return nil, fmt.Errorf("kernel argument %d has type %T; pass driver.Ptr, int32, uint32 or float32", i, a)
		}
		p.ptrs[i] = unsafe.Pointer(&p.slots[i])
	}
	return p, nil
}

// pin pins the slots and the pointer array for the duration of a launch
// (the array holds Go pointers, so C may only see it pinned) and returns the
// kernelParams argument: nil for a kernel without arguments.
func (p *kernelParams) pin(pinner *runtime.Pinner) *unsafe.Pointer {
	if len(p.ptrs) == 0 {
		return nil
	}
	pinner.Pin(&p.slots[0])
	pinner.Pin(&p.ptrs[0])
	return &p.ptrs[0]
}
