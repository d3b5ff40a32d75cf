/* Exercises every public entry point of kgen_select.h.
     cheader_api hostile   calls each with unknown archs, NULLs, huge and
                           negative values (built with -fsanitize=address,
                           undefined by runtime/cheader_test.go: any report
                           aborts); checks the statuses and invariants, prints
                           "hostile ok: N calls" or the first violation.
     cheader_api bench     prints nanoseconds per kg_select and
                           kg_select_cached call on a few decode ops.
     cheader_api vk        reads "vendor driver" lines, prints kg_vulkan_class's
                           class name (NONE when none; driver "-": NULL). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kgen_select.h"

static unsigned long long calls;
static int failed;

#define CHECK(cond, ...)                         \
  do {                                           \
    if (!(cond)) {                               \
      if (failed++ < 20) {                       \
        printf("FAIL %s:%d: ", __FILE__, __LINE__); \
        printf(__VA_ARGS__);                     \
        printf("\n");                            \
      }                                          \
    }                                            \
  } while (0)

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;
static unsigned long long rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}
#define PICK(arr) (arr[rnd() % (sizeof(arr) / sizeof(arr[0]))])

static const long long ints[] = {0, 1, -1, 2, 7, 8, 9, 32, 64, 255, 256, 1024, 4096, 65535, 65536, 151936,
                                 2147483647LL, 2147483648LL, 4294967295LL, 4294967296LL, -2147483648LL,
                                 LLONG_MAX, LLONG_MIN, LLONG_MAX - 1, LLONG_MIN + 1, 1LL << 40, -(1LL << 40)};
static const long long dtypes[] = {0, -1, 1000, LLONG_MIN, LLONG_MAX, KG_S_f32, KG_S_f16, KG_S_bf16, KG_S_fp8e4m3_bf16, KG_S_fp8e4m3_f16, KG_S_subgroup};
static const char* const families[] = {NULL, "", "gemv", "quant_q8k", "quant_q8_1", "gmv", "gemv ", "GEMV", "quant"};
static const char* const backends[] = {NULL, "", "hip", "vulkan", "cuda", "HIP"};
static char long_name[20000];
static const char* archs_pool[] = {NULL, "", ":", "sm90", "gfx1100", "gfx1201", "gfx1151:sramecc-:xnack-", "gfx942:sramecc+:xnack-",
                                   "sm90:", "llvmpipe", "amd", "nvidia", "intel", "gfx90", "gfx90a\n", "sm9", long_name};

static int valid_status(int s) { return s == KG_OK || (s >= KG_OUT_OF_RANGE && s <= KG_NOT_ELIGIBLE); }

static void random_device(kg_device* d) {
  d->backend = PICK(backends);
  d->arch = PICK(archs_pool);
  d->wave = PICK(ints);
  d->compute_units = PICK(ints);
  d->shared_memory = PICK(ints);
  d->max_workgroup = PICK(ints);
  d->min_subgroup = PICK(ints);
  if (rnd() % 2) { /* a real device with one hostile field */
    kg_arch_device(kg_archs[rnd() % KG_NARCHS].name, d);
    switch (rnd() % 6) {
    case 0: d->wave = PICK(ints); break;
    case 1: d->compute_units = PICK(ints); break;
    case 2: d->max_workgroup = PICK(ints); break;
    case 3: d->min_subgroup = PICK(ints); break;
    case 4: d->shared_memory = PICK(ints); break;
    default: break;
    }
  }
}

static void random_op(kg_op* op) {
  op->family = PICK(families);
  op->dtype = PICK(dtypes);
  op->m = PICK(ints);
  op->n = PICK(ints);
  op->k = PICK(ints);
  op->align = PICK(ints);
  if (rnd() % 2) { /* small, plausible shapes */
    op->m = (long long)(rnd() % 10);
    op->n = (long long)(rnd() % 200000);
    op->k = (long long)(rnd() % 20000);
    op->align = (long long)(rnd() % 20) - 2;
  }
}

static void check_launch(const kg_launch* l) {
  CHECK(l->nbuffers >= 1 && l->nbuffers <= KG_MAX_BUFFERS, "nbuffers %d", l->nbuffers);
  CHECK(l->nargs >= 0 && l->nargs <= KG_MAX_ARGS, "nargs %d", l->nargs);
  CHECK(l->nspec >= 0 && l->nspec <= KG_MAX_SPEC, "nspec %d", l->nspec);
  CHECK(l->workgroup >= 1 && l->workgroup <= 1048576, "workgroup %lld", l->workgroup);
  CHECK(l->push_bytes == 4LL * l->nargs, "push_bytes %lld", l->push_bytes);
  CHECK(l->entry != NULL, "no entry");
  for (int i = 0; i < 3; i++) CHECK(l->groups[i] >= 1, "groups[%d] %lld", i, l->groups[i]);
  for (int i = 0; i < l->nbuffers; i++) {
    CHECK(l->buffers[i].bytes >= 0 && l->buffers[i].bytes <= 4294967295LL, "buffer %d bytes %lld", i, l->buffers[i].bytes);
    CHECK(l->buffers[i].binding == i, "buffer %d binding %d", i, l->buffers[i].binding);
    CHECK(l->buffers[i].name && l->buffers[i].dir && l->buffers[i].elem, "buffer %d names", i);
  }
  for (int i = 0; i < l->nargs; i++) CHECK(l->args[i] >= 0 && l->args[i] <= 4294967295LL, "arg %d %lld", i, l->args[i]);
}

static int hostile(void) {
  kg_device d;
  kg_op op;
  kg_launch l;
  static kg_cache cache;
  memset(long_name, 'g', sizeof long_name - 1);

  /* Statuses named. */
  for (int s = -20; s <= 5; s++) CHECK(kg_status_str(s) != NULL, "kg_status_str(%d)", s);
  CHECK(kg_status_str(INT_MIN) && kg_status_str(INT_MAX), "kg_status_str extremes");

  /* kg_arch_device: the known ones, feature suffixes, unknown, NULL. */
  CHECK(kg_arch_device("gfx1201", &d) == KG_UNKNOWN_ARCH && d.backend == NULL, "gfx1201 must be unknown with a zeroed device");
  CHECK(kg_arch_device(NULL, &d) == KG_INVALID_ARG, "NULL name");
  CHECK(kg_arch_device("sm90", NULL) == KG_INVALID_ARG, "NULL out");
  CHECK(kg_arch_device(long_name, &d) == KG_UNKNOWN_ARCH, "long name");
  CHECK(kg_arch_device("", &d) == KG_UNKNOWN_ARCH && kg_arch_device(":", &d) == KG_UNKNOWN_ARCH, "empty names");
  CHECK(kg_arch_device("gfx942:sramecc+:xnack-", &d) == KG_OK && strcmp(d.arch, "gfx942") == 0, "feature suffix");
  CHECK(kg_arch_device("gfx94", &d) == KG_UNKNOWN_ARCH && kg_arch_device("gfx9420", &d) == KG_UNKNOWN_ARCH, "prefix names");
  for (int i = 0; i < KG_NARCHS; i++) CHECK(kg_arch_device(kg_archs[i].name, &d) == KG_OK && d.arch == kg_archs[i].name, "arch %d", i);
  calls += 12 + KG_NARCHS;

  /* kg_select on the gfx1201 device of the bug report: a status, no crash. */
  kg_arch_device("gfx1201", &d);
  op.family = "gemv"; op.dtype = KG_S_bf16; op.m = 1; op.n = 4096; op.k = 4096; op.align = 0;
  CHECK(kg_select(&d, &op) == KG_INVALID_ARG, "select on a zeroed device");
  CHECK(kg_select(NULL, &op) == KG_INVALID_ARG && kg_select(&d, NULL) == KG_INVALID_ARG && kg_select(NULL, NULL) == KG_INVALID_ARG, "NULL select");
  CHECK(kg_plan(0, NULL, &op, &l) == KG_INVALID_ARG && kg_plan(0, &d, NULL, &l) == KG_INVALID_ARG && kg_plan(0, &d, &op, NULL) == KG_INVALID_ARG, "NULL plan");
  kg_arch_device("sm90", &d);
  op.family = NULL;
  CHECK(kg_select(&d, &op) == KG_INVALID_ARG, "NULL family");
  op.family = "gmv";
  CHECK(kg_select(&d, &op) == KG_UNKNOWN_FAMILY, "unknown family");
  op.family = "gemv";
  d.arch = "gfx1201";
  CHECK(kg_select(&d, &op) == KG_UNKNOWN_ARCH, "unknown arch in a device");
  d.arch = "amd"; /* a Vulkan class under backend hip */
  CHECK(kg_select(&d, &op) == KG_UNKNOWN_ARCH, "backend/arch mismatch");
  kg_arch_device("sm90", &d);
  op.align = -4;
  CHECK(kg_select(&d, &op) == KG_INVALID_OP, "negative align");
  op.align = 0; op.m = 9;
  CHECK(kg_select(&d, &op) == KG_NOT_ELIGIBLE, "m = 9 is the GEMM path");
  op.m = 1; op.dtype = 999;
  CHECK(kg_select(&d, &op) == KG_NO_VARIANT, "unknown dtype");
  op.dtype = KG_S_bf16;
  CHECK(kg_select(&d, &op) >= 0, "sm90 gemv bf16 has a pick");
  for (int i = -3; i <= 3; i++) {
    int v = i < 0 ? INT_MIN + 3 + i : i == 0 ? -1 : KG_NVARIANTS - 1 + i;
    int s = kg_plan(v, &d, &op, &l);
    CHECK(v >= 0 && v < KG_NVARIANTS ? valid_status(s) : s == KG_INVALID_ARG, "plan index %d: %d", v, s);
  }
  CHECK(kg_plan(INT_MAX, &d, &op, &l) == KG_INVALID_ARG, "plan INT_MAX");
  calls += 20;

  /* Vulkan classes. */
  {
    kg_vulkan_info info;
    memset(&info, 0, sizeof info);
    CHECK(kg_vulkan_device(NULL, &d) == KG_INVALID_ARG && kg_vulkan_device(&info, NULL) == KG_INVALID_ARG, "NULL vulkan");
    CHECK(kg_vulkan_device(&info, &d) == KG_UNKNOWN_ARCH && d.backend == NULL, "vendor 0, no driver");
    info.vendor_id = 0x10005; info.driver_name = "LLVMPIPE"; info.subgroup_size = 8;
    CHECK(kg_vulkan_device(&info, &d) == KG_OK && strcmp(d.arch, "llvmpipe") == 0, "lavapipe");
    info.vendor_id = 0x1002; info.driver_name = "llvmpipe";
    CHECK(kg_vulkan_device(&info, &d) == KG_OK && strcmp(d.arch, "amd") == 0, "a driver name needs its vendor");
    info.driver_name = long_name;
    CHECK(kg_vulkan_device(&info, &d) == KG_OK && strcmp(d.arch, "amd") == 0, "long driver name");
    for (int i = 0; i < 20000; i++) {
      info.vendor_id = (unsigned)rnd();
      if (rnd() % 2) info.vendor_id = PICK(((unsigned[]){0u, 0x1002u, 0x10deu, 0x8086u, 0x10005u, 0xffffffffu}));
      info.driver_name = rnd() % 3 ? PICK(archs_pool) : PICK(((const char*[]){"radv", "llvmpipe", "NVIDIA", "", NULL}));
      info.subgroup_size = PICK(ints);
      info.min_subgroup_size = PICK(ints);
      info.max_workgroup_invocations = PICK(ints);
      info.max_shared_memory = PICK(ints);
      {
        int s = kg_vulkan_device(&info, &d);
        CHECK(s == KG_OK || s == KG_UNKNOWN_ARCH, "kg_vulkan_device %d", s);
        if (s == KG_OK) {
          random_op(&op);
          s = kg_select(&d, &op);
          CHECK(s >= 0 ? s < KG_NVARIANTS : valid_status(s), "select on vulkan %d", s);
        }
      }
      calls += 2;
    }
  }

  /* Random hostile devices and ops: kg_select, kg_select_cached (same
     answer), kg_plan of the pick and of random variants. */
  kg_cache_init(&cache);
  kg_cache_init(NULL);
  for (int it = 0; it < 60000; it++) {
    int s, sc, vi;
    random_device(&d);
    random_op(&op);
    s = kg_select(&d, &op);
    CHECK(s >= 0 ? s < KG_NVARIANTS : valid_status(s), "kg_select %d", s);
    sc = kg_select_cached(it % 3 ? &cache : NULL, &d, &op);
    CHECK(sc == s, "kg_select_cached %d, kg_select %d", sc, s);
    sc = kg_select_cached(&cache, &d, &op); /* a hit when cacheable */
    CHECK(sc == s, "kg_select_cached (again) %d, kg_select %d", sc, s);
    if (s >= 0) {
      const kg_variant* v = &kg_variants[s];
      CHECK(strcmp(v->family, op.family) == 0 && v->p[KG_P_dtype] == op.dtype, "pick %s for %s", v->name, op.family);
      CHECK(kg_arch_index(d.arch) >= 0 && strcmp(v->arch, kg_archs[kg_arch_index(d.arch)].name) == 0, "pick %s of another arch", v->name);
      CHECK(kg_artifacts[v->art].path != NULL && strlen(kg_artifacts[v->art].sha256) == 64, "artifact of %s", v->name);
      s = kg_plan(s, &d, &op, &l);
      CHECK(valid_status(s), "kg_plan of the pick: %d", s);
      if (s == KG_OK) check_launch(&l);
    }
    vi = rnd() % 4 ? (int)(rnd() % KG_NVARIANTS) : (int)PICK(ints);
    s = kg_plan(vi, &d, &op, &l);
    CHECK(valid_status(s), "kg_plan(%d) %d", vi, s);
    if (s == KG_OK) check_launch(&l);
    else {
      kg_launch z;
      memset(&z, 0, sizeof z);
      CHECK(memcmp(&l, &z, sizeof z) == 0, "kg_plan %d left a partial launch", s);
    }
    calls += 5;
  }
  /* The lookup helpers. */
  for (int i = 0; i < (int)(sizeof archs_pool / sizeof archs_pool[0]); i++) (void)kg_arch_index(archs_pool[i]);
  for (int i = 0; i < (int)(sizeof families / sizeof families[0]); i++) (void)kg_family_index(families[i]);
  for (int i = 0; i < (int)(sizeof dtypes / sizeof dtypes[0]); i++) (void)kg_dtype_index(dtypes[i]);
  (void)kg_vulkan_class(0x1002u, NULL);
  printf("hostile %s: %llu calls, cache %llu hits %llu misses\n", failed ? "FAILED" : "ok", calls, cache.hits, cache.misses);
  return failed != 0;
}

static double now_ns(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int bench(void) {
  static kg_cache cache;
  struct {
    const char* arch;
    kg_op op;
  } cases[] = {
      {"sm90", {"gemv", KG_S_bf16, 1, 4096, 4096, 0}},
      {"sm90", {"gemv", KG_S_fp8e4m3_bf16, 8, 151936, 5120, 0}},
      {"gfx942", {"gemv", KG_S_f16, 1, 4096, 14336, 0}},
      {"sm90", {"quant_q8_1", KG_S_f32, 1, 1, 4096, 0}},
  };
  kg_cache_init(&cache);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    kg_device d;
    int pick = -1, n = 0, iters = 200;
    double t0, t1, t2;
    volatile int sink = 0;
    kg_arch_device(cases[c].arch, &d);
    t0 = now_ns();
    for (int i = 0; i < iters; i++) sink += kg_select(&d, &cases[c].op);
    t1 = now_ns();
    for (int i = 0; i < iters * 1000; i++) sink += kg_select_cached(&cache, &d, &cases[c].op);
    t2 = now_ns();
    pick = kg_select(&d, &cases[c].op);
    {
      int a = kg_arch_index(d.arch), f = kg_family_index(cases[c].op.family), dt = kg_dtype_index(cases[c].op.dtype);
      n = kg_groups[(f * KG_NARCHS + a) * KG_NDTYPES + dt][1];
    }
    printf("bench %s %s dtype=%lld m=%lld n=%lld k=%lld candidates=%d pick=%s select_ns=%.0f cached_ns=%.1f\n", cases[c].arch,
           cases[c].op.family, cases[c].op.dtype, cases[c].op.m, cases[c].op.n, cases[c].op.k, n,
           pick >= 0 ? kg_variants[pick].name : kg_status_str(pick), (t1 - t0) / iters, (t2 - t1) / (iters * 1000.0));
    (void)sink;
  }
  return 0;
}

static int vk(void) {
  unsigned vendor;
  char driver[256];
  while (scanf("%x %255s", &vendor, driver) == 2) {
    int a = kg_vulkan_class(vendor, strcmp(driver, "-") == 0 ? NULL : driver);
    puts(a < 0 ? "NONE" : kg_archs[a].name);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "hostile") == 0) return hostile();
  if (argc == 2 && strcmp(argv[1], "bench") == 0) return bench();
  if (argc == 2 && strcmp(argv[1], "vk") == 0) return vk();
  fprintf(stderr, "usage: cheader_api hostile|bench|vk\n");
  return 2;
}
