// The cpp-vulkan example's host logic on HIP (AMD ROCm), using only
// generated/kgen_select.h (and examples/common/host_check.h): the device's
// arch name as HIP reports it (gcnArchName, feature suffixes and all) goes to
// kg_arch_device; kg_select picks a decode GEMV (bf16, 3 tokens) and a Q8_1
// quantization; kg_plan gives the grid, workgroup, buffers and arguments;
// the kernels come from code objects built from generated/hip/<family>_<arch>.hip
// (README.md: the clang command), whose sources are checked against
// kg_artifacts' SHA-256 first; the results are compared with the CPU.
//
// It needs an AMD GPU to run; CI only compiles it (see README.md).
// Usage: kgen-hip-example GENERATED_DIR CODE_OBJECT_DIR
// Exit: 0 both match, 1 a mismatch, 2 usage or selection error, 3 no HIP
// device or a HIP error.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../common/host_check.h"

namespace {

#define HIP_CHECK(call)                                                                          \
  do {                                                                                           \
    hipError_t e_ = (call);                                                                      \
    if (e_ != hipSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, hipGetErrorString(e_)); \
      std::exit(3);                                                                              \
    }                                                                                            \
  } while (0)

// select_and_plan picks the variant for op and plans its launch, printing
// both; -1 when either fails.
int select_and_plan(const kg_device& d, const kg_op& op, kg_launch* l) {
  int v = kg_select(&d, &op);
  std::printf("%s m=%lld n=%lld k=%lld: ", op.family, op.m, op.n, op.k);
  if (v < 0) {
    std::printf("%s\n", kg_status_str(v));
    return -1;
  }
  std::printf("variant %s\n", kg_variants[v].name);
  int st = kg_plan(v, &d, &op, l);
  if (st != KG_OK) {
    std::printf("  kg_plan: %s\n", kg_status_str(st));
    return -1;
  }
  kgex::print_launch(*l);
  return v;
}

// run_launch loads the code object of variant v's family and arch (after
// checking the HIP source it was built from against kg_artifacts), finds the
// kernel kg_plan names (l.entry: the variant's name), binds one device buffer
// per planned buffer (inputs copied in, the output poisoned with 0xFF bytes,
// zero scratch zeroed), launches the grid once and returns the output bytes.
bool run_launch(const std::string& generated, const std::string& objects, int v, const kg_launch& l,
                const std::vector<std::vector<unsigned char>>& inputs, std::vector<unsigned char>* out) {
  std::vector<unsigned char> source;
  if (!kgex::load_artifact(generated, v, &source)) return false;  // hip/<family>_<arch>.hip
  const kg_variant& var = kg_variants[v];
  std::string co = objects + "/" + var.family + "_" + var.arch + ".co";
  std::printf("  source: %s matches kg_artifacts; code object %s\n", kg_artifacts[var.art].path, co.c_str());
  hipModule_t mod;
  HIP_CHECK(hipModuleLoad(&mod, co.c_str()));
  hipFunction_t fn;
  HIP_CHECK(hipModuleGetFunction(&fn, mod, l.entry));

  std::vector<void*> ptrs((size_t)l.nbuffers, nullptr);
  size_t in = 0, outIdx = 0;
  for (int i = 0; i < l.nbuffers; i++) {
    size_t bytes = (size_t)(l.buffers[i].bytes < 16 ? 16 : l.buffers[i].bytes);
    HIP_CHECK(hipMalloc(&ptrs[(size_t)i], bytes));
    HIP_CHECK(hipMemset(ptrs[(size_t)i], 0, bytes));
    if (std::strcmp(l.buffers[i].dir, "in") == 0) {
      const std::vector<unsigned char>& src = inputs[in++];
      if (!src.empty()) HIP_CHECK(hipMemcpy(ptrs[(size_t)i], src.data(), src.size(), hipMemcpyHostToDevice));
    } else if (std::strcmp(l.buffers[i].dir, "out") == 0) {
      HIP_CHECK(hipMemset(ptrs[(size_t)i], 0xff, bytes));
      outIdx = (size_t)i;
    }
  }
  // Kernel arguments: the buffers' pointers in order, then the planned
  // arguments as int (each fits 32 bits: kg_plan checked).
  std::vector<int> ints((size_t)l.nargs);
  std::vector<void*> params;
  for (auto& p : ptrs) params.push_back(&p);
  for (int i = 0; i < l.nargs; i++) {
    ints[(size_t)i] = (int)(unsigned)l.args[i];
    params.push_back(&ints[(size_t)i]);
  }
  HIP_CHECK(hipModuleLaunchKernel(fn, (unsigned)l.groups[0], (unsigned)l.groups[1], (unsigned)l.groups[2], (unsigned)l.workgroup, 1, 1, 0,
                                  nullptr, params.data(), nullptr));
  HIP_CHECK(hipDeviceSynchronize());
  out->assign((size_t)l.buffers[outIdx].bytes, 0);
  HIP_CHECK(hipMemcpy(out->data(), ptrs[outIdx], out->size(), hipMemcpyDeviceToHost));
  for (auto& p : ptrs) HIP_CHECK(hipFree(p));
  HIP_CHECK(hipModuleUnload(mod));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s GENERATED_DIR CODE_OBJECT_DIR\n", argv[0]);
    return 2;
  }
  std::string generated = argv[1], objects = argv[2];
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess || count == 0) {
    std::fprintf(stderr, "no HIP device: this example needs an AMD GPU with ROCm\n");
    return 3;
  }
  hipDeviceProp_t prop;
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  kg_device d;
  int st = kg_arch_device(prop.gcnArchName, &d);  // "gfx1100:sramecc-:xnack-" is gfx1100
  std::printf("device: %s (%s)", prop.name, prop.gcnArchName);
  if (st != KG_OK) {
    std::printf("\n");
    std::fprintf(stderr, "kg_arch_device: %s: add templates/archs/<arch>.yaml and regenerate\n", kg_status_str(st));
    return 2;
  }
  d.max_workgroup = prop.maxThreadsPerBlock;
  std::printf(" -> kgen arch %s\n", d.arch);
  int failures = 0;

  {
    kg_op op{"gemv", KG_S_bf16, 3, 1536, 2048, 0};
    kg_launch l;
    int v = select_and_plan(d, op, &l);
    if (v < 0) return 2;
    kgex::Rng rng(42);
    std::vector<uint16_t> w((size_t)(op.n * op.k)), x((size_t)(op.m * op.k));
    for (auto& e : w) e = kgex::to_bf16(rng.uniform(-1, 1));
    for (auto& e : x) e = kgex::to_bf16(rng.uniform(-1, 1));
    std::vector<std::vector<unsigned char>> inputs;
    for (int i = 0; i < l.nbuffers; i++) {
      if (std::strcmp(l.buffers[i].dir, "in") != 0) continue;
      std::vector<unsigned char> b((size_t)l.buffers[i].bytes);
      if (std::strcmp(l.buffers[i].name, "W") == 0) std::memcpy(b.data(), w.data(), b.size());
      if (std::strcmp(l.buffers[i].name, "X") == 0) std::memcpy(b.data(), x.data(), b.size());
      inputs.push_back(b);
    }
    std::vector<unsigned char> out;
    if (!run_launch(generated, objects, v, l, inputs, &out)) return 3;
    std::vector<float> y((size_t)(op.m * op.n));
    std::memcpy(y.data(), out.data(), y.size() * 4);
    kgex::GemvCheck c = kgex::check_gemv(w, x, y, op.m, op.n, op.k);
    std::printf("  compare: L2 error / L2 of sum|x*w| = %.3g, bound %.3g (max |error| %.3g): %s\n", c.l2_ratio, c.bound, c.max_abs,
                c.ok ? "PASS" : "FAIL");
    failures += !c.ok;
  }
  {
    kg_op op{"quant_q8_1", KG_S_f32, 5, 1, 4100, 0};
    kg_launch l;
    int v = select_and_plan(d, op, &l);
    if (v < 0) return 2;
    kgex::Rng rng(7);
    std::vector<float> x((size_t)(op.m * op.k));
    for (auto& e : x) e = rng.uniform(-3, 3);
    std::vector<std::vector<unsigned char>> inputs(1, std::vector<unsigned char>((size_t)l.buffers[0].bytes));
    std::memcpy(inputs[0].data(), x.data(), inputs[0].size());
    std::vector<unsigned char> got;
    if (!run_launch(generated, objects, v, l, inputs, &got)) return 3;
    long long nb = (op.k + 31) / 32;
    std::vector<unsigned char> want((size_t)(op.m * nb * 36));
    for (long long r = 0; r < op.m; r++) kgex::quantize_q8_1_row(&x[(size_t)(r * op.k)], op.k, &want[(size_t)(r * nb * 36)]);
    bool same = got == want;
    std::printf("  compare: %lld blocks byte-identical to the CPU port: %s\n", op.m * nb, same ? "PASS" : "FAIL");
    failures += !same;
  }
  std::printf("%s\n", failures ? "FAIL" : "ok");
  return failures ? 1 : 0;
}
