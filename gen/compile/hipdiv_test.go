package compile

import (
	"strings"
	"testing"
)

// TestHIPDivisions checks hipDivisions on ISA fragments: clang's
// full-precision f32 division (gfx942 and gfx1200 orders), and what the
// approximate lowerings and a contracted multiply-add look like.
func TestHIPDivisions(t *testing.T) {
	full942 := "v_div_scale_f32 v_rcp_f32_e32 v_div_scale_f32 v_fma_f32 v_fmac_f32_e32 v_mul_f32_e32 v_fma_f32 v_fmac_f32_e32 v_fma_f32 v_div_fmas_f32 v_div_fixup_f32"
	full1200 := "v_div_scale_f32 s_delay_alu v_rcp_f32_e32 v_fma_f32 s_delay_alu v_fmac_f32_e32 v_div_scale_f32 v_mul_f32_e32 s_delay_alu v_fma_f32 v_fmac_f32_e32 s_delay_alu v_fma_f32 v_div_fmas_f32 s_delay_alu v_div_fixup_f32"
	for _, c := range []struct {
		name, isa string
		divs      int
		ok        bool
	}{
		{"gfx942 division", full942, 1, true},
		{"gfx1200 division", full1200, 1, true},
		{"two interleaved", "v_div_scale_f32 v_div_scale_f32 v_rcp_f32_e32 v_rcp_f32_e32 v_div_scale_f32 v_div_scale_f32 " + strings.Repeat("v_fma_f32 ", 10) + "v_div_fmas_f32 v_div_fmas_f32 v_div_fixup_f32 v_div_fixup_f32", 2, true},
		{"no division", "v_mul_f32_e32 v_add_f32_e32", 0, true},
		{"contracted product", "v_mul_f32_e32 v_fmac_f32_e32 " + full942, 0, false},
		{"multiply-add after a division", full942 + " v_fma_f32", 1, false},
		{"approximate (fast-math)", "v_rcp_f32_e32 v_mul_f32_e32", 0, false},
		{"approximate (2.5 ulp)", "v_cmp_gt_f32_e64 v_cndmask_b32_e64 v_mul_f32_e32 v_rcp_f32_e32 v_mul_f32_e32 v_mul_f32_e32", 0, false},
		{"no fixup", "v_div_scale_f32 v_rcp_f32_e32 v_div_scale_f32 v_fma_f32 v_div_fmas_f32", 0, false},
		{"a mad inside", strings.Replace(full942, "v_fma_f32", "v_mad_f32", 1), 0, false},
		{"too many", strings.Replace(full942, "v_fma_f32", "v_fma_f32 v_fma_f32", 1), 0, false},
	} {
		divs, bad := hipDivisions(strings.Fields(c.isa))
		if (bad == "") != c.ok || (c.ok && divs != c.divs) {
			t.Errorf("%s: %d divisions, %q; want ok=%v with %d", c.name, divs, bad, c.ok, c.divs)
		}
	}
}

// TestHIPIRFdivs checks the IR side: plain fdivs are counted per function,
// flagged ones (fast-math, contract, !fpmath) are reported.
func TestHIPIRFdivs(t *testing.T) {
	ir := `define protected amdgpu_kernel void @quant_q8_1_f32_sg(ptr addrspace(1) noundef %0) #0 {
  %79 = fdiv float %78, 1.270000e+02
  %683 = fdiv float %681, %682
}
define internal void @"helper.1"(float %a) {
  %2 = fdiv contract float %a, %b
  %3 = fdiv float %a, 1.270000e+02, !fpmath !12
  %4 = fdiv arcp float %a, %b
  %5 = fdiv fast float %a, %b
  %6 = fmul float %a, %b
}
`
	divs, bad := hipIRFdivs(ir)
	if divs["quant_q8_1_f32_sg"] != 2 || divs["helper.1"] != 4 || len(bad) != 4 {
		t.Errorf("divisions %v, flagged %q; want 2 plain in the kernel and 4 flagged in helper.1", divs, bad)
	}
	for _, b := range bad {
		if !strings.HasPrefix(b, "helper.1: ") {
			t.Errorf("flagged %q: want only helper.1's", b)
		}
	}
}
