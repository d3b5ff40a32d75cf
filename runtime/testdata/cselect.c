/* Reads queries "family arch dtype m n k align" from stdin and prints the
   variant kg_select picks: its name and the launch kg_plan computes for it,
   or NOT_ELIGIBLE / NO_VARIANT / INVALID_OP (a negative align). */
#include <stdio.h>
#include <string.h>
#include "kgen_select.h"

static long long dtype_id(const char* s) {
#define D(name) if (strcmp(s, #name) == 0) return KG_S_##name;
  D(f32) D(f16) D(bf16) D(fp8e4m3_bf16) D(fp8e4m3_f16)
#undef D
  return -1;
}

int main(void) {
  char family[64], arch[64], dtype[64];
  long long m, n, k, align;
  while (scanf("%63s %63s %63s %lld %lld %lld %lld", family, arch, dtype, &m, &n, &k, &align) == 7) {
    kg_device d;
    kg_op op = {family, dtype_id(dtype), m, n, k, align};
    int i;
    if (kg_arch_device(arch, &d) != KG_OK) { puts("UNKNOWN_ARCH"); continue; }
    i = kg_select(&d, &op);
    if (i == KG_NOT_ELIGIBLE) puts("NOT_ELIGIBLE");
    else if (i == KG_INVALID_OP) puts("INVALID_OP");
    else if (i == KG_NO_VARIANT) puts("NO_VARIANT");
    else if (i < 0) printf("STATUS %d\n", i);
    else {
      /* The picked variant's launch contract, as runtime.Plan computes it. */
      kg_launch l;
      memset(&l, 0, sizeof l);
      if (kg_plan(i, &d, &op, &l) != KG_OK) {
        printf("%s PLAN_REFUSED\n", kg_variants[i].name);
        continue;
      }
      printf("%s groups %lld %lld %lld wg %lld buffers", kg_variants[i].name, l.groups[0], l.groups[1], l.groups[2], l.workgroup);
      for (int b = 0; b < l.nbuffers; b++) printf(" %s=%lld", l.buffers[b].name, l.buffers[b].bytes);
      printf(" args");
      for (int a = 0; a < l.nargs; a++) printf(" %lld", l.args[a]);
      printf("\n");
    }
  }
  return 0;
}
