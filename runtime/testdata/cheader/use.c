/* Calls every public entry point of kgen_select.h once: compiled as C11 and
   as C++17 (use.cc includes it) under -Wall -Wextra -Wpedantic -Werror by
   runtime/cheader_test.go. With KG_SECOND_UNIT, a second translation unit
   of the same program (tu2.c). */
#include "kgen_select.h"

int kg_use_second(void);

#ifndef KG_SECOND_UNIT
int main(void) {
  kg_device d;
  kg_vulkan_info info;
  kg_op op = {"gemv", KG_S_bf16, 1, 4096, 4096, 0};
  kg_launch l;
  kg_cache c;
  int i, s = 0;
  memset(&info, 0, sizeof info);
  info.vendor_id = 0x10005u;
  info.driver_name = "llvmpipe";
  info.subgroup_size = 8;
  s += kg_vulkan_device(&info, &d) != KG_OK;
  s += kg_vulkan_class(0x1002u, "radv") < 0;
  s += kg_arch_device("gfx1100:xnack-", &d) != KG_OK;
  s += kg_arch_index("gfx1100") < 0 || kg_family_index("gemv") < 0 || kg_dtype_index(KG_S_bf16) < 0;
  kg_cache_init(&c);
  i = kg_select_cached(&c, &d, &op);
  s += i != kg_select(&d, &op);
  s += i < 0 || kg_plan(i, &d, &op, &l) != KG_OK;
  s += kg_status_str(i)[0] == '\0';
  s += kg_artifacts[kg_variants[i < 0 ? 0 : i].art].sha256[0] == '\0';
#ifdef KG_TWO_UNITS
  s += kg_use_second() < 0;
#endif
  return s;
}
#else
int kg_use_second(void) {
  kg_device d;
  kg_op op = {"quant_q8_1", KG_S_f32, 1, 1, 4096, 0};
  if (kg_arch_device("gfx942", &d) != KG_OK) return -1;
  return kg_select(&d, &op);
}
#endif
