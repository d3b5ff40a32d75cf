package runtime

import (
	"fmt"

	"github.com/kgen-dev/kgen/runtime/table"
)

// CheckDevice refuses a variant the device cannot run: a workgroup larger
// than the device allows, or (Vulkan) subgroups smaller than the kernels
// need. Select excludes such variants with the same reasons; launch planning
// (PlanGEMV, PlanQuant) refuses them, so a runner handed one launches
// nothing.
func CheckDevice(v *table.Variant, dev Device) error {
	if reason := deviceLimits(v, dev); reason != "" {
		return &RefusedError{Variant: v.Name, Reason: reason}
	}
	return nil
}

// AlignOf is the Op.Align of W and X buffers bound at these element
// offsets: the largest power of two dividing both (at most 1<<20), or 0 when
// both are 0 (fully aligned).
func AlignOf(wOffsetElems, xOffsetElems int) int {
	if wOffsetElems == 0 && xOffsetElems == 0 {
		return 0
	}
	a := 1
	for a < 1<<20 && wOffsetElems%(2*a) == 0 && xOffsetElems%(2*a) == 0 {
		a *= 2
	}
	return a
}

// CheckOffsets refuses binding v's buffers at these offsets (in elements of
// each buffer's type, by buffer name; absent names are offset 0) when its
// loads would be misaligned: each buffer with an align in its family's
// launch contract needs an offset that is a multiple of it.
//
// This is the launch-time side of the spec's alignment rules (GEMV:
// `align % pack == 0`): a variant Select picked for Op.Align = a accepts any
// offsets that are multiples of a, and offsets CheckOffsets accepts give an
// Op.Align (AlignOf) for which Select keeps the variant eligible.
func CheckOffsets(v *table.Variant, offsets map[string]int) error {
	refuse := func(f string, a ...any) error { return &RefusedError{Variant: v.Name, Reason: fmt.Sprintf(f, a...)} }
	c, err := contractOf(v.Family)
	if err != nil {
		return refuse("%v", err)
	}
	for name, off := range offsets {
		found := false
		for _, b := range c.fam.Launch.Buffers {
			found = found || b.Name == name
		}
		if !found {
			return refuse("no buffer %s (the kernels take %s)", name, bufferNames(c.fam))
		}
		if off < 0 {
			return refuse("negative offset %d for buffer %s", off, name)
		}
	}
	env := newEnv(Op{Family: v.Family}, Device{}, v)
	for i, b := range c.fam.Launch.Buffers {
		if c.aligns[i] == nil {
			continue
		}
		a, err := c.aligns[i].Eval(env)
		if err != nil || a.IsStr || a.Int < 1 {
			return refuse("buffer %s: alignment %s: %v", b.Name, a, err)
		}
		if off := offsets[b.Name]; int64(off)%a.Int != 0 {
			return refuse("%s offset of %d elements is not a multiple of %d: the kernel loads %d elements at once", b.Name, off, a.Int, a.Int)
		}
	}
	return nil
}

func bufferNames(f *table.Family) string {
	s := ""
	for i, b := range f.Launch.Buffers {
		if i > 0 {
			s += ", "
		}
		s += b.Name
	}
	return s
}
