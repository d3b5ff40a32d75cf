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

// CheckOffsets refuses binding v's W and X buffers at these offsets (in
// elements of the weight and activation types) when its loads would be
// misaligned. A GEMV variant loads pack elements at once, so both offsets
// must be multiples of pack; other families state their alignment as
// eligibility rules over align, which are checked with AlignOf(offsets).
//
// This is the launch-time side of the spec's `align % pack == 0` rule:
// a variant Select picked for Op.Align = a accepts any offsets that are
// multiples of a, and offsets CheckOffsets accepts give an Op.Align
// (AlignOf) for which Select keeps the variant eligible.
func CheckOffsets(v *table.Variant, wOffsetElems, xOffsetElems int) error {
	refuse := func(f string, a ...any) error { return &RefusedError{Variant: v.Name, Reason: fmt.Sprintf(f, a...)} }
	if wOffsetElems < 0 || xOffsetElems < 0 {
		return refuse("negative buffer offset (W %d, X %d elements)", wOffsetElems, xOffsetElems)
	}
	if v.Family == "gemv" {
		pack := v.IntParam("pack")
		if pack < 1 {
			return refuse("pack %d: not a loadable variant", pack)
		}
		for _, o := range []struct {
			buf string
			off int
		}{{"W", wOffsetElems}, {"X", xOffsetElems}} {
			if o.off%pack != 0 {
				return refuse("%s offset of %d elements is not a multiple of pack %d: the kernel loads %d elements at once", o.buf, o.off, pack, pack)
			}
		}
		return nil
	}
	fam, err := familyRules(v.Family)
	if err != nil {
		return refuse("%v", err)
	}
	rules, err := rulesFor(fam, v.Arch)
	if err != nil {
		return refuse("%v", err)
	}
	dev, _ := ArchDevice(v.Arch)
	env := Env(Op{Family: v.Family, Dtype: v.Param("dtype"), Align: AlignOf(wOffsetElems, xOffsetElems)}, dev, v)
	for _, r := range rules.eligible {
		if !namesOnly(r.e.Names(), "align") {
			continue
		}
		if ok, err := r.e.Bool(env); err != nil || !ok {
			return refuse("offsets W %d, X %d elements: %s (%s)", wOffsetElems, xOffsetElems, r.why, r.e.Src)
		}
	}
	return nil
}

// namesOnly reports whether names include must and none of the op's
// shape (m, n, k), which offsets alone do not give.
func namesOnly(names []string, must string) bool {
	found := false
	for _, n := range names {
		switch n {
		case must:
			found = true
		case "m", "n", "k":
			return false
		}
	}
	return found
}
