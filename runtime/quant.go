package runtime

import (
	"fmt"

	"github.com/kgen-dev/kgen/runtime/table"
)

// QuantFormat is the block format an activation quantizer family writes
// (shared/reference/quant-formats.md).
type QuantFormat struct {
	Family     string
	Block      int  // elements per block
	BlockBytes int  // bytes per output block
	Pad        bool // rows of any K are padded to whole blocks with zeros; else K % Block == 0
	// MaxLanes bounds the lanes one block spreads over in the subgroup
	// layout (each lane holds Block/lanes consecutive elements).
	MaxLanes int
}

// The quantizer families.
var quantFormats = []QuantFormat{
	{Family: "quant_q8k", Block: 256, BlockBytes: 292, MaxLanes: 64},
	{Family: "quant_q8_1", Block: 32, BlockBytes: 36, Pad: true, MaxLanes: 32},
}

// QuantFormatOf returns the format of a quantizer family.
func QuantFormatOf(family string) (QuantFormat, bool) {
	for _, f := range quantFormats {
		if f.Family == family {
			return f, true
		}
	}
	return QuantFormat{}, false
}

// IsQuant reports whether family is an activation quantizer.
func IsQuant(family string) bool {
	_, ok := QuantFormatOf(family)
	return ok
}

// QuantLaunch is how to launch a quantizer variant for rows x K.
type QuantLaunch struct {
	// Groups: x * y workgroups (x <= 65535) cover Workgroups; workgroup
	// (x, y) is number y * Groups[0] + x; numbers past the end do nothing.
	Groups     [3]uint32
	Workgroups int // ceil(rows * BlocksPerRow / BlocksPerGroup)
	Workgroup  int // lanes per workgroup
	// BlocksPerRow is K / Block, or ceil(K / Block) for padded formats;
	// BlocksPerGroup the blocks one workgroup quantizes.
	BlocksPerRow, BlocksPerGroup int
	// Push is the Vulkan push constants: rows, K, blocks per row, blocks per
	// workgroup. HIP kernels take (X, Y, rows, K, Groups[0]).
	Push [4]uint32
	// Buffer sizes in bytes: X is rows x K elements, Y rows x BlocksPerRow
	// blocks.
	XBytes, YBytes int
}

// maxGroupsX is the workgroup count per dimension every Vulkan device
// supports (maxComputeWorkGroupCount >= 65535).
const maxGroupsX = 65535

// QuantBlocksPerGroup is how many blocks one workgroup of v quantizes on
// dev: a lane each (thread), waves subgroups of Wave / min(Wave, MaxLanes)
// blocks each (subgroup), or wg / min(wg, Block) (workgroup). The kernels
// compute the same from their compile-time wave (HIP) or from this value
// passed in (Vulkan, where it is a push constant).
func QuantBlocksPerGroup(v *table.Variant, dev Device) (int, error) {
	f, ok := QuantFormatOf(v.Family)
	if !ok {
		return 0, fmt.Errorf("%s is not a quantizer", v.Family)
	}
	wg := WorkgroupSize(v, dev)
	switch v.Param("layout") {
	case "thread":
		return wg, nil
	case "subgroup":
		if dev.Wave < 8 {
			return 0, fmt.Errorf("subgroup of %d lanes; the kernels need at least 8", dev.Wave)
		}
		return v.IntParam("waves") * (dev.Wave / min(dev.Wave, f.MaxLanes)), nil
	case "workgroup":
		return wg / min(wg, f.Block), nil
	}
	return 0, fmt.Errorf("%s: unknown layout %q", v.Name, v.Param("layout"))
}

// PlanQuant computes the launch of quantizer v on dev for rows rows of K
// elements, refusing what it cannot serve: a device that cannot run the
// variant (CheckDevice: a workgroup above the device's maximum, Vulkan
// subgroups under 8 lanes), an empty shape, Q8_K with K not a multiple of
// 256 (Q8_1 pads instead), or sizes past 32-bit indexing.
func PlanQuant(v *table.Variant, dev Device, rows, K int) (*QuantLaunch, error) {
	refuse := func(f string, a ...any) error { return &RefusedError{Variant: v.Name, Reason: fmt.Sprintf(f, a...)} }
	f, ok := QuantFormatOf(v.Family)
	if !ok {
		return nil, refuse("not a quantizer variant (family %s)", v.Family)
	}
	if err := CheckDevice(v, dev); err != nil {
		return nil, err
	}
	if rows < 1 || K < 1 {
		return nil, refuse("empty shape rows=%d K=%d", rows, K)
	}
	if !f.Pad && K%f.Block != 0 {
		return nil, refuse("K=%d is not a multiple of %d: %s quantizes whole %d-element blocks (pad the rows, or use a padding format such as quant_q8_1)",
			K, f.Block, v.Family, f.Block)
	}
	dt := dtypeOf(v.Param("dtype"))
	if dt == nil {
		return nil, refuse("unknown dtype %q", v.Param("dtype"))
	}
	nb := (K + f.Block - 1) / f.Block
	if int64(rows)*int64(nb)*int64(f.Block) >= 1<<32 || int64(rows)*int64(nb)*int64(f.BlockBytes) >= 1<<32 {
		return nil, refuse("rows=%d K=%d exceeds 32-bit element indexing", rows, K)
	}
	bpw, err := QuantBlocksPerGroup(v, dev)
	if err != nil {
		return nil, refuse("%v", err)
	}
	groups := (rows*nb + bpw - 1) / bpw
	gx := min(groups, maxGroupsX)
	gy := (groups + gx - 1) / gx
	if gy > maxGroupsX {
		return nil, refuse("%d workgroups exceed %d x %d", groups, maxGroupsX, maxGroupsX)
	}
	l := &QuantLaunch{
		Groups: [3]uint32{uint32(gx), uint32(gy), 1}, Workgroups: groups, Workgroup: WorkgroupSize(v, dev),
		BlocksPerRow: nb, BlocksPerGroup: bpw,
		Push:   [4]uint32{uint32(rows), uint32(K), uint32(nb), uint32(bpw)},
		XBytes: rows * K * dt.ActBytes, YBytes: rows * nb * f.BlockBytes,
	}
	if l.Workgroup <= 0 {
		return nil, refuse("workgroup size %d on a device with subgroup %d", l.Workgroup, dev.Wave)
	}
	return l, nil
}

// CheckBuffers refuses a launch whose buffers are smaller than it needs.
func (l *QuantLaunch) CheckBuffers(variant string, x, y int) error {
	if x < l.XBytes {
		return &RefusedError{Variant: variant, Reason: fmt.Sprintf("buffer X holds %d bytes, the shape needs %d", x, l.XBytes)}
	}
	if y < l.YBytes {
		return &RefusedError{Variant: variant, Reason: fmt.Sprintf("buffer Y holds %d bytes, the shape needs %d", y, l.YBytes)}
	}
	return nil
}
