package compile

import (
	"strings"
	"testing"
)

// hipKernels reads each family's spelling and refuses a kernel whose name
// and call disagree, so the ISA checks never look at the wrong kernel.
func TestHIPKernelsSpellings(t *testing.T) {
	for _, c := range []struct {
		family, src, want string // want: "" or a substring of the error
	}{
		{"gemv", "KG_KERNEL(32) gemv_bf16_p8_r1_t1_sg(int N) {\n  gemv<KG_BF16, KG_BF16, 8, 1, 1, KG_SUBGROUP, 32, 1, false>(N);\n}\n", ""},
		{"gemv", "KG_KERNEL(64) gemv_bf16_p8_r1_t1_sg(int N) {\n  gemv<KG_BF16, KG_BF16, 8, 1, 1, KG_SUBGROUP, 32, 1, false>(N);\n}\n", "disagree"},
		{"gemv", "KG_KERNEL(32) gemv_bf16_p4_r1_t1_sg(int N) {\n  gemv<KG_BF16, KG_BF16, 8, 1, 1, KG_SUBGROUP, 32, 1, false>(N);\n}\n", "disagree"},
		{"mmvq", "KG_KERNEL(128) mmvq_q4_k_r2_t1_wg128(int N) {\n  mmvq<KG_Q4_K, 2, 1, KG_WORKGROUP, 128, 1>(N);\n}\n", ""},
		{"mmvq", "KG_KERNEL(128) mmvq_q4_k_r2_t1_wg128(int N) {\n  mmvq<KG_Q6_K, 2, 1, KG_WORKGROUP, 128, 1>(N);\n}\n", "disagree"},
		{"mmvq", "KG_KERNEL(128) mmvq_q5_k_r2_t1_wg128(int N) {\n", "does not follow mmvq_<q4_k|q6_k|q8_0>"},
		{"quant_q8k", "KG_KERNEL_MIN(128, 4) quant_q8k_bf16_multi(int K) {\n  q8k<KG_BF16, KG_SUBGROUP, 128, 4, 1>(K);\n}\n", ""},
		{"quant_q8k", "KG_KERNEL(128) quant_q8k_f16_multi(int K) {\n  q8k<KG_BF16, KG_SUBGROUP, 128, 4, 1>(K);\n}\n", "disagree"},
		{"quant_q8k", "KG_KERNEL(128) quant_q8_1_f16_multi(int K) {\n", "does not follow quant_q8k_<dtype>_<tile>"},
		{"quant_q8k", "KG_KERNEL(128) quant_q8k_f16_multi(int K) {\n  return;\n", "does not call its body"},
		{"quant_q8k", "KG_KERNEL(128) quant_q8k_f16_multi(int K) {\n", "has no body"},
	} {
		ks, lines, err := hipKernels([]byte(c.src), c.family)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %q: %v", c.family, c.src, err)
		case c.want == "" && (len(ks) != 1 || lines[1] != ks[0].name || lines[2] != ks[0].name):
			t.Errorf("%s %q: kernels %v, lines %v; want one kernel on lines 1 and 2", c.family, c.src, ks, lines)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %q: error %v; want one containing %q", c.family, c.src, err, c.want)
		}
	}
}
