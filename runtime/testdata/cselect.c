/* Answers queries from stdin with kgen_select.h, one line each:
     family arch dtype m n k align
       the variant kg_select picks on kg_arch_device(arch): its name and the
       launch kg_plan computes for it, or NOT_ELIGIBLE / NO_VARIANT /
       INVALID_OP / UNKNOWN_ARCH / STATUS n;
     vk vendor driver subgroup min_subgroup max_workgroup shared family dtype m n k align
       the same on kg_vulkan_device (driver "-" for none);
     plan index arch dtype m n k align
       kg_plan of kg_variants[index] (its name, then the launch or PLAN_REFUSED). */
#include <stdio.h>
#include <string.h>
#include "kgen_select.h"

static long long dtype_id(const char* s) {
#define D(name) if (strcmp(s, #name) == 0) return KG_S_##name;
  D(f32) D(f16) D(bf16) D(fp8e4m3_bf16) D(fp8e4m3_f16)
#undef D
  return -1;
}

static void print_launch(int i, const kg_device* d, const kg_op* op) {
  kg_launch l;
  if (kg_plan(i, d, op, &l) != KG_OK) {
    printf("%s PLAN_REFUSED\n", kg_variants[i].name);
    return;
  }
  printf("%s groups %lld %lld %lld wg %lld buffers", kg_variants[i].name, l.groups[0], l.groups[1], l.groups[2], l.workgroup);
  for (int b = 0; b < l.nbuffers; b++) printf(" %s=%lld", l.buffers[b].name, l.buffers[b].bytes);
  printf(" args");
  for (int a = 0; a < l.nargs; a++) printf(" %lld", l.args[a]);
  printf(" spec");
  for (int s = 0; s < l.nspec; s++) printf(" %u=%u", l.spec[s].id, l.spec[s].value);
  printf("\n");
}

static void answer(const kg_device* d, const kg_op* op) {
  int i = kg_select(d, op);
  if (i == KG_NOT_ELIGIBLE) puts("NOT_ELIGIBLE");
  else if (i == KG_INVALID_OP) puts("INVALID_OP");
  else if (i == KG_NO_VARIANT) puts("NO_VARIANT");
  else if (i < 0) printf("STATUS %d\n", i);
  else print_launch(i, d, op);
}

int main(void) {
  char word[64], family[64], arch[64], dtype[64], driver[64];
  long long m, n, k, align;
  while (scanf("%63s", word) == 1) {
    kg_device d;
    if (strcmp(word, "vk") == 0) {
      kg_vulkan_info info;
      unsigned vendor;
      long long sg, minsg, maxwg, shm;
      if (scanf("%x %63s %lld %lld %lld %lld %63s %63s %lld %lld %lld %lld", &vendor, driver, &sg, &minsg, &maxwg, &shm, family, dtype, &m, &n, &k, &align) != 12) return 1;
      info.vendor_id = vendor;
      info.driver_name = strcmp(driver, "-") == 0 ? NULL : driver;
      info.subgroup_size = sg;
      info.min_subgroup_size = minsg;
      info.max_workgroup_invocations = maxwg;
      info.max_shared_memory = shm;
      if (kg_vulkan_device(&info, &d) != KG_OK) { puts("UNKNOWN_ARCH"); continue; }
      {
        kg_op op = {family, dtype_id(dtype), m, n, k, align};
        answer(&d, &op);
      }
      continue;
    }
    if (strcmp(word, "plan") == 0) {
      int idx;
      if (scanf("%d %63s %63s %lld %lld %lld %lld", &idx, arch, dtype, &m, &n, &k, &align) != 7) return 1;
      if (kg_arch_device(arch, &d) != KG_OK) { puts("UNKNOWN_ARCH"); continue; }
      {
        kg_op op = {NULL, 0, m, n, k, align};
        print_launch(idx, &d, &op);
      }
      continue;
    }
    strcpy(family, word);
    if (scanf("%63s %63s %lld %lld %lld %lld", arch, dtype, &m, &n, &k, &align) != 6) return 1;
    if (kg_arch_device(arch, &d) != KG_OK) { puts("UNKNOWN_ARCH"); continue; }
    {
      kg_op op = {family, dtype_id(dtype), m, n, k, align};
      answer(&d, &op);
    }
  }
  return 0;
}
