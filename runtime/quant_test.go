package runtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kgen-dev/kgen/generated"
	"github.com/kgen-dev/kgen/runtime/table"
)

func quantVariant(t *testing.T, backend, arch, name string) *table.Variant {
	t.Helper()
	for i := range generated.Variants {
		v := &generated.Variants[i]
		if v.Backend == backend && v.Arch == arch && v.Name == name {
			return v
		}
	}
	t.Fatalf("no variant %s/%s/%s", backend, arch, name)
	return nil
}

func TestPlanRefusesQ8KTail(t *testing.T) {
	dev, _ := ArchDevice("gfx1200")
	v := quantVariant(t, "hip", "gfx1200", "quant_q8k_bf16_sg")
	_, err := Plan(v, dev, Op{M: 1, N: 1, K: 4096 + 128})
	var re *RefusedError
	if !errors.As(err, &re) || !errors.Is(err, ErrRefused) {
		t.Fatalf("K=4224: got %v, want a RefusedError", err)
	}
	for _, want := range []string{"k=4224", "K must be a multiple of 256", "quant_q8k"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	for _, bad := range [][2]int{{0, 256}, {1, 0}, {-1, 256}} {
		if _, err := Plan(v, dev, Op{M: bad[0], N: 1, K: bad[1]}); !errors.Is(err, ErrRefused) {
			t.Errorf("rows=%d K=%d: got %v, want a refusal", bad[0], bad[1], err)
		}
	}
	if _, err := Plan(v, dev, Op{Family: "gemv", M: 1, N: 1, K: 256}); !errors.Is(err, ErrRefused) {
		t.Errorf("an op of another family: got %v, want a refusal", err)
	}
	// 32-bit offsets: 2^24 rows of 256 elements are 2^32 elements.
	if _, err := Plan(v, dev, Op{M: 1 << 24, N: 1, K: 256}); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "32-bit") {
		t.Errorf("2^32 elements: got %v, want a 32-bit refusal", err)
	}
}

func TestPlanPadsQ8_1(t *testing.T) {
	dev, _ := ArchDevice("gfx942")
	v := quantVariant(t, "hip", "gfx942", "quant_q8_1_f16_wg")
	l, err := Plan(v, dev, Op{M: 3, N: 1, K: 40})
	if err != nil {
		t.Fatal(err)
	}
	// 2 blocks per row (32 + 8 padded), 128 blocks per 256-lane workgroup
	// (2 lanes a block).
	nb, _ := l.Let("blocks")
	bpw, _ := l.Let("per_group")
	if nb != 2 || bpw != 128 || l.Workgroups != 1 || l.Buffer("Y").Size != 3*2*36 || l.Buffer("X").Size != 3*40*2 || l.Workgroup != 256 {
		t.Fatalf("plan %+v", l)
	}
	// HIP: rows, K, grid_x after the pointers.
	if fmt.Sprint(l.Args) != "[3 40 1]" || fmt.Sprint(l.ArgNames) != "[rows K gx]" {
		t.Fatalf("args %v %v", l.ArgNames, l.Args)
	}
	// Vulkan: rows, K, blocks per row, blocks per workgroup (push constants).
	vdev, _ := ArchDevice("llvmpipe")
	vv := quantVariant(t, "vulkan", "llvmpipe", "quant_q8_1_f16_wg")
	vl, err := Plan(vv, vdev, Op{M: 3, N: 1, K: 40})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(vl.Args) != "[3 40 2 128]" || len(vl.Push()) != 16 {
		t.Fatalf("vulkan args %v %v", vl.ArgNames, vl.Args)
	}
}

// TestQuantGeometry pins the blocks per workgroup of every layout on waves
// of 8, 32 and 64: the kernels compute the same (HIP at compile time from
// their wave, Vulkan from this value in the push constants).
func TestQuantGeometry(t *testing.T) {
	for _, c := range []struct {
		backend, arch, name string
		wg, bpw             int
	}{
		// thread: a lane per block; the other tiles 16 elements a lane:
		// Q8_K min(wave, 16) lanes a superblock, Q8_1 2 lanes a block;
		// Q8_K's _sb2 tiles (f16 and bf16) take two superblocks a lane.
		{"hip", "gfx90a", "quant_q8k_f32_thread", 64, 64},
		{"hip", "gfx90a", "quant_q8k_f32_sg", 64, 4},
		{"hip", "gfx90a", "quant_q8k_f32_multi", 256, 16},
		{"hip", "gfx90a", "quant_q8k_f32_wg", 256, 16},
		{"hip", "gfx90a", "quant_q8_1_f32_sg", 64, 32},
		{"hip", "gfx90a", "quant_q8_1_f32_multi", 256, 128},
		{"hip", "gfx90a", "quant_q8_1_f32_wg", 256, 128},
		{"hip", "gfx1100", "quant_q8k_f16_sg", 32, 2},
		{"hip", "gfx1100", "quant_q8k_f16_sg_sb2", 32, 4},
		{"hip", "gfx90a", "quant_q8k_bf16_multi_sb2", 256, 32},
		{"hip", "gfx1100", "quant_q8_1_f16_sg", 32, 16},
		{"hip", "gfx1100", "quant_q8_1_f16_multi", 128, 64},
		{"vulkan", "llvmpipe", "quant_q8_1_bf16_multi", 32, 16},
		{"vulkan", "llvmpipe", "quant_q8k_bf16_sg", 8, 1},
		{"vulkan", "llvmpipe", "quant_q8k_bf16_sg_sb2", 8, 2},
	} {
		dev, err := ArchDevice(c.arch)
		if err != nil {
			t.Fatal(err)
		}
		v := quantVariant(t, c.backend, c.arch, c.name)
		l, err := Plan(v, dev, Op{M: 4096, N: 1, K: 4096})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		bpw, _ := l.Let("per_group")
		if l.Workgroup != c.wg || int(bpw) != c.bpw {
			t.Errorf("%s on %s: workgroup %d, %d blocks per group; want %d, %d", c.name, c.arch, l.Workgroup, bpw, c.wg, c.bpw)
		}
		nb, _ := l.Let("blocks")
		blocks := 4096 * int(nb)
		if want := (blocks + c.bpw - 1) / c.bpw; l.Workgroups != want || int(l.Groups[0])*int(l.Groups[1]) < want ||
			l.Groups[0] > 65535 || l.Groups[1] > 65535 || int(l.Groups[0])*int(l.Groups[1]-1) >= want {
			t.Errorf("%s: groups %v for %d workgroups", c.name, l.Groups, want)
		}
	}
}

func TestSelectQuant(t *testing.T) {
	dev, _ := ArchDevice("gfx1200")
	_, err := SelectWith(dev, Op{Family: "quant_q8k", Dtype: "bf16", M: 1, N: 1, K: 4000}, nil)
	var ne *NotEligibleError
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), "multiple of 256") {
		t.Fatalf("K=4000: got %v, want not eligible (multiple of 256)", err)
	}
	for _, c := range []struct {
		family string
		m, k   int
		tile   string
	}{
		// The family default (the H200's fit): 4 subgroups a workgroup
		// from m * k >= CUs * 4096 (Q8_K) or CUs * 65536 (Q8_1); 32 CUs.
		{"quant_q8k", 1, 4096, "sg"},
		{"quant_q8k", 8, 4096, "sg"},
		{"quant_q8k", 64, 4096, "multi"},
		{"quant_q8_1", 1, 4096, "sg"},
		{"quant_q8_1", 1, 4100, "sg"}, // Q8_1 pads any K
		{"quant_q8_1", 64, 4096, "sg"},
		{"quant_q8_1", 512, 4096, "multi"},
		{"quant_q8_1", 4096, 4096, "multi"}, // MoE-sized
	} {
		ch, err := SelectWith(dev, Op{Family: c.family, Dtype: "f16", M: c.m, N: 1, K: c.k}, nil)
		if err != nil {
			t.Fatalf("%s m=%d k=%d: %v", c.family, c.m, c.k, err)
		}
		if got := ch.Variant.Param("tile"); got != c.tile {
			t.Errorf("%s m=%d k=%d: picked %s, want tile %s (%v)", c.family, c.m, c.k, ch.Variant.Name, c.tile, ch.Reasons)
		}
	}
	// Q8_K passes: one superblock a lane without a measured key (gfx1200)
	// and on NVIDIA Vulkan (two lost there, run 2026-12-02f); on sm90 below
	// 32768 elements per SM (decode), two (16-bit input only) from there.
	sm90, _ := ArchDevice("sm90")
	nv, _ := ArchDevice("nvidia")
	for _, c := range []struct {
		dev    Device
		dtype  string
		m, k   int
		passes string
	}{
		{dev, "f16", 4096, 4096, "1"},
		{sm90, "f16", 1, 4096, "1"},
		{sm90, "bf16", 8, 14336, "1"},
		{sm90, "f16", 512, 4096, "1"},
		{sm90, "f16", 512, 14336, "2"},
		{sm90, "bf16", 4096, 4096, "2"},
		{sm90, "f32", 4096, 4096, "1"},
		{nv, "bf16", 1, 4096, "1"},
		{nv, "f16", 4096, 14336, "1"},
	} {
		ch, err := SelectWith(c.dev, Op{Family: "quant_q8k", Dtype: c.dtype, M: c.m, N: 1, K: c.k}, nil)
		if err != nil {
			t.Fatalf("quant_q8k %s m=%d k=%d: %v", c.dtype, c.m, c.k, err)
		}
		if got := ch.Variant.Param("passes"); got != c.passes {
			t.Errorf("quant_q8k %s m=%d k=%d on %s: picked %s, want passes %s", c.dtype, c.m, c.k, ch.Variant.Arch, ch.Variant.Name, c.passes)
		}
	}
	// The baseline only by force.
	ch, err := SelectWith(dev, Op{Family: "quant_q8k", Dtype: "f32", M: 1, N: 1, K: 256}, ParseOverride("quant_q8k:tile=thread"))
	if err != nil || ch.Variant.Name != "quant_q8k_f32_thread" {
		t.Fatalf("forced thread: %v %v", ch, err)
	}
	// HIP Q8_K reads 16-byte chunks: unaligned rows are not served.
	if _, err := SelectWith(dev, Op{Family: "quant_q8k", Dtype: "f32", M: 1, N: 1, K: 256, Align: 2}, nil); err == nil {
		t.Fatal("align=2 f32: want no variant")
	}
}

// TestPlanRefusesDeviceLimits: Plan refuses, with CheckDevice's
// typed refusal and no plan, every quantizer layout on a device that cannot
// run it (Vulkan subgroups under 8 lanes, a workgroup above the device's
// maximum), as Select excludes them with the same reasons.
func TestPlanRefusesDeviceLimits(t *testing.T) {
	dev, err := ArchDevice("llvmpipe")
	if err != nil {
		t.Fatal(err)
	}
	small := dev
	small.Wave, small.MinSubgroup = 4, 4
	narrow := dev
	narrow.MaxWorkgroup = 16
	layouts := map[string]bool{}
	for i := range generated.Variants {
		v := &generated.Variants[i]
		if !strings.HasPrefix(v.Family, "quant_") || v.Backend != "vulkan" || v.Arch != "llvmpipe" {
			continue
		}
		layouts[v.Param("layout")] = true
		for _, c := range []struct {
			dev  Device
			want string
		}{
			{small, "subgroups of 4 lanes; the kernels need at least 8"},
			{narrow, "exceeds the device's 16"},
		} {
			if c.dev.MaxWorkgroup > 0 && WorkgroupSize(v, c.dev) <= c.dev.MaxWorkgroup {
				continue
			}
			l, err := Plan(v, c.dev, Op{M: 4, N: 1, K: 4096})
			var re *RefusedError
			if l != nil || !errors.As(err, &re) || !errors.Is(err, ErrRefused) || re.Variant != v.Name || !strings.Contains(re.Reason, c.want) {
				t.Errorf("%s on %+v: plan %v, error %v; want a RefusedError saying %q", v.Name, c.dev, l, err, c.want)
			}
			if want := CheckDevice(v, c.dev); want == nil || err == nil || want.Error() != err.Error() {
				t.Errorf("%s: Plan says %v, CheckDevice %v", v.Name, err, want)
			}
		}
		// The device itself serves it.
		if _, err := Plan(v, dev, Op{M: 4, N: 1, K: 4096}); err != nil {
			t.Errorf("%s on its own class: %v", v.Name, err)
		}
	}
	for _, l := range []string{"thread", "subgroup", "workgroup"} {
		if !layouts[l] {
			t.Errorf("no llvmpipe quantizer variant of layout %s checked (have %v)", l, layouts)
		}
	}
	// Select excludes what Plan refuses.
	for _, fam := range []string{"quant_q8k", "quant_q8_1"} {
		_, err := SelectWith(small, Op{Family: fam, Dtype: "f16", M: 4, N: 1, K: 4096}, nil)
		var nv *NoVariantError
		if !errors.As(err, &nv) || len(nv.Candidates) == 0 {
			t.Fatalf("%s on subgroups of 4: %v, want a NoVariantError", fam, err)
		}
		for _, c := range nv.Candidates {
			if !strings.Contains(c.Excluded, "subgroups of 4 lanes") {
				t.Errorf("%s excluded for %q", c.Variant.Name, c.Excluded)
			}
		}
	}
}
