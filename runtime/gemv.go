package runtime

import (
	"errors"
	"fmt"

	"github.com/kgen-dev/kgen/runtime/table"
)

// WorkgroupSize is v's workgroup size on dev: the subgroup layout runs
// `waves` subgroups of the device's size when the family has that parameter
// (the quantizers), else `rows` (GEMV: a subgroup per row); other layouts
// name their size.
func WorkgroupSize(v *table.Variant, dev Device) int {
	if v.Param("layout") == "subgroup" || v.IntParam("wg") == 0 {
		if w := v.IntParam("waves"); w > 0 {
			return w * dev.Wave
		}
		return v.IntParam("rows") * dev.Wave
	}
	return v.IntParam("wg")
}

// GEMVLaunch is how to launch a GEMV variant for a shape.
type GEMVLaunch struct {
	Groups    [3]uint32 // workgroups: ceil(N / rows), splits, 1
	Workgroup int       // lanes per workgroup
	Push      [3]uint32 // T, N, K (Vulkan push constants; kernel args on HIP)
	// Buffer sizes in bytes the kernel reads or writes.
	WBytes, XBytes, ScaleBytes, YBytes, PartialBytes, CounterBytes int
}

// RefusedError is a launch the variant cannot serve; nothing was launched.
type RefusedError struct {
	Variant string
	Reason  string
}

func (e *RefusedError) Error() string { return fmt.Sprintf("%s refuses: %s", e.Variant, e.Reason) }

// ErrRefused matches every RefusedError.
var ErrRefused = errors.New("refused")

func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// PlanGEMV computes the launch for v on dev for T tokens, N rows, K columns,
// refusing shapes the variant does not accept.
func PlanGEMV(v *table.Variant, dev Device, T, N, K int) (*GEMVLaunch, error) {
	refuse := func(f string, a ...any) error { return &RefusedError{Variant: v.Name, Reason: fmt.Sprintf(f, a...)} }
	if v.Family != "gemv" {
		return nil, refuse("not a gemv variant")
	}
	tokens, pack, rows, splits := v.IntParam("tokens"), v.IntParam("pack"), v.IntParam("rows"), v.IntParam("splits")
	if pack < 1 || rows < 1 {
		return nil, refuse("malformed variant: pack %d, rows %d", pack, rows)
	}
	if err := CheckDevice(v, dev); err != nil {
		return nil, err
	}
	if T < 1 || T > tokens {
		return nil, refuse("T=%d outside 1..%d", T, tokens)
	}
	if N < 1 || K < 1 {
		return nil, refuse("empty shape N=%d K=%d", N, K)
	}
	if K%pack != 0 {
		return nil, refuse("K=%d is not a multiple of pack %d", K, pack)
	}
	if int64(N)*int64(K) >= 1<<32 {
		return nil, refuse("N*K=%d exceeds 32-bit element indexing", int64(N)*int64(K))
	}
	dt := dtypeOf(v.Param("dtype"))
	if dt == nil {
		return nil, refuse("unknown dtype %q", v.Param("dtype"))
	}
	if splits < 1 {
		splits = 1
	}
	l := &GEMVLaunch{
		Groups:    [3]uint32{uint32((N + rows - 1) / rows), uint32(splits), 1},
		Workgroup: WorkgroupSize(v, dev),
		Push:      [3]uint32{uint32(T), uint32(N), uint32(K)},
		WBytes:    N * K * dt.WeightBytes, XBytes: T * K * dt.ActBytes, ScaleBytes: 4 * N, YBytes: 4 * T * N,
		PartialBytes: 4 * splits * T * N, CounterBytes: 4 * ((N + rows - 1) / rows),
	}
	if !dt.Scaled {
		l.ScaleBytes = 0 // bound, never read
	}
	if l.Workgroup <= 0 {
		return nil, refuse("workgroup size %d on a device with subgroup %d", l.Workgroup, dev.Wave)
	}
	return l, nil
}

func dtypeOf(name string) *table.Dtype {
	for i := range generatedDtypes() {
		if generatedDtypes()[i].Name == name {
			return &generatedDtypes()[i]
		}
	}
	return nil
}

// CheckBuffers refuses a launch whose buffers are smaller than it needs.
func (l *GEMVLaunch) CheckBuffers(variant string, w, x, scale, y, partial, counter int) error {
	check := []struct {
		name       string
		have, need int
	}{{"W", w, l.WBytes}, {"X", x, l.XBytes}, {"scale", scale, l.ScaleBytes}, {"Y", y, l.YBytes}, {"partial", partial, l.PartialBytes}, {"counter", counter, l.CounterBytes}}
	for _, c := range check {
		if c.have < c.need {
			return &RefusedError{Variant: variant, Reason: fmt.Sprintf("buffer %s holds %d bytes, the shape needs %d", c.name, c.have, c.need)}
		}
	}
	return nil
}
