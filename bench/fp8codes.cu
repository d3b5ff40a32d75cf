// fp8codes.cu: every OCP e4m3 code (0..255) through every e4m3 decode path
// of the portability header (generated/hip/kgen_hip.h) on an NVIDIA GPU,
// compared bit for bit with runtime/ref's E4M3ToF32 (kWant below; the NaN
// codes 0x7F and 0xFF accept any NaN; -0 must stay -0). runtime/ref's
// TestFP8CodesTable checks kWant against E4M3ToF32, so this program and the
// CPU reference cannot drift apart.
//
//   nvcc -std=c++17 -arch=sm_90 -I generated/hip -o /tmp/fp8codes bench/fp8codes.cu && /tmp/fp8codes
//
// prints one line per path and exits 0 when all 256 codes match on every
// path at every byte position. -arch=sm_90 takes the hardware path
// (KG_E4M3_HW 1: cvt.rn.f16x2.e4m3x2); -DKG_E4M3_SOFTWARE, or an arch
// before sm_89, the software one; both are worth running. The hardware
// instruction shows in `cuobjdump -sass /tmp/fp8codes | grep -c E4M3`.
#include <cstdio>
#include <cstring>
#include <cmath>
#include "kgen_hip.h"

// runtime/ref.E4M3ToF32(c) as float bits, NaN as 0x7FC00000.
static const uint32_t kWant[256] = {
// BEGIN kWant
    0x00000000u, 0x3B000000u, 0x3B800000u, 0x3BC00000u, 0x3C000000u, 0x3C200000u, 0x3C400000u, 0x3C600000u,
    0x3C800000u, 0x3C900000u, 0x3CA00000u, 0x3CB00000u, 0x3CC00000u, 0x3CD00000u, 0x3CE00000u, 0x3CF00000u,
    0x3D000000u, 0x3D100000u, 0x3D200000u, 0x3D300000u, 0x3D400000u, 0x3D500000u, 0x3D600000u, 0x3D700000u,
    0x3D800000u, 0x3D900000u, 0x3DA00000u, 0x3DB00000u, 0x3DC00000u, 0x3DD00000u, 0x3DE00000u, 0x3DF00000u,
    0x3E000000u, 0x3E100000u, 0x3E200000u, 0x3E300000u, 0x3E400000u, 0x3E500000u, 0x3E600000u, 0x3E700000u,
    0x3E800000u, 0x3E900000u, 0x3EA00000u, 0x3EB00000u, 0x3EC00000u, 0x3ED00000u, 0x3EE00000u, 0x3EF00000u,
    0x3F000000u, 0x3F100000u, 0x3F200000u, 0x3F300000u, 0x3F400000u, 0x3F500000u, 0x3F600000u, 0x3F700000u,
    0x3F800000u, 0x3F900000u, 0x3FA00000u, 0x3FB00000u, 0x3FC00000u, 0x3FD00000u, 0x3FE00000u, 0x3FF00000u,
    0x40000000u, 0x40100000u, 0x40200000u, 0x40300000u, 0x40400000u, 0x40500000u, 0x40600000u, 0x40700000u,
    0x40800000u, 0x40900000u, 0x40A00000u, 0x40B00000u, 0x40C00000u, 0x40D00000u, 0x40E00000u, 0x40F00000u,
    0x41000000u, 0x41100000u, 0x41200000u, 0x41300000u, 0x41400000u, 0x41500000u, 0x41600000u, 0x41700000u,
    0x41800000u, 0x41900000u, 0x41A00000u, 0x41B00000u, 0x41C00000u, 0x41D00000u, 0x41E00000u, 0x41F00000u,
    0x42000000u, 0x42100000u, 0x42200000u, 0x42300000u, 0x42400000u, 0x42500000u, 0x42600000u, 0x42700000u,
    0x42800000u, 0x42900000u, 0x42A00000u, 0x42B00000u, 0x42C00000u, 0x42D00000u, 0x42E00000u, 0x42F00000u,
    0x43000000u, 0x43100000u, 0x43200000u, 0x43300000u, 0x43400000u, 0x43500000u, 0x43600000u, 0x43700000u,
    0x43800000u, 0x43900000u, 0x43A00000u, 0x43B00000u, 0x43C00000u, 0x43D00000u, 0x43E00000u, 0x7FC00000u,
    0x80000000u, 0xBB000000u, 0xBB800000u, 0xBBC00000u, 0xBC000000u, 0xBC200000u, 0xBC400000u, 0xBC600000u,
    0xBC800000u, 0xBC900000u, 0xBCA00000u, 0xBCB00000u, 0xBCC00000u, 0xBCD00000u, 0xBCE00000u, 0xBCF00000u,
    0xBD000000u, 0xBD100000u, 0xBD200000u, 0xBD300000u, 0xBD400000u, 0xBD500000u, 0xBD600000u, 0xBD700000u,
    0xBD800000u, 0xBD900000u, 0xBDA00000u, 0xBDB00000u, 0xBDC00000u, 0xBDD00000u, 0xBDE00000u, 0xBDF00000u,
    0xBE000000u, 0xBE100000u, 0xBE200000u, 0xBE300000u, 0xBE400000u, 0xBE500000u, 0xBE600000u, 0xBE700000u,
    0xBE800000u, 0xBE900000u, 0xBEA00000u, 0xBEB00000u, 0xBEC00000u, 0xBED00000u, 0xBEE00000u, 0xBEF00000u,
    0xBF000000u, 0xBF100000u, 0xBF200000u, 0xBF300000u, 0xBF400000u, 0xBF500000u, 0xBF600000u, 0xBF700000u,
    0xBF800000u, 0xBF900000u, 0xBFA00000u, 0xBFB00000u, 0xBFC00000u, 0xBFD00000u, 0xBFE00000u, 0xBFF00000u,
    0xC0000000u, 0xC0100000u, 0xC0200000u, 0xC0300000u, 0xC0400000u, 0xC0500000u, 0xC0600000u, 0xC0700000u,
    0xC0800000u, 0xC0900000u, 0xC0A00000u, 0xC0B00000u, 0xC0C00000u, 0xC0D00000u, 0xC0E00000u, 0xC0F00000u,
    0xC1000000u, 0xC1100000u, 0xC1200000u, 0xC1300000u, 0xC1400000u, 0xC1500000u, 0xC1600000u, 0xC1700000u,
    0xC1800000u, 0xC1900000u, 0xC1A00000u, 0xC1B00000u, 0xC1C00000u, 0xC1D00000u, 0xC1E00000u, 0xC1F00000u,
    0xC2000000u, 0xC2100000u, 0xC2200000u, 0xC2300000u, 0xC2400000u, 0xC2500000u, 0xC2600000u, 0xC2700000u,
    0xC2800000u, 0xC2900000u, 0xC2A00000u, 0xC2B00000u, 0xC2C00000u, 0xC2D00000u, 0xC2E00000u, 0xC2F00000u,
    0xC3000000u, 0xC3100000u, 0xC3200000u, 0xC3300000u, 0xC3400000u, 0xC3500000u, 0xC3600000u, 0xC3700000u,
    0xC3800000u, 0xC3900000u, 0xC3A00000u, 0xC3B00000u, 0xC3C00000u, 0xC3D00000u, 0xC3E00000u, 0x7FC00000u,
// END kWant
};

enum { P_BYTE, P_UNPACK8, P_UNPACK4, P_UNPACK2, P_UNPACK1, P_X2_SW, P_X2, P_MMA_F16, P_MMA_BF16, P_MMA_F16_SW, P_MMA_BF16_SW, NPATH };
static const char* kPath[NPATH] = {
    "kg_e4m3_to_f32 (software, per byte)",
    "kg_unpack<KG_E4M3, 8> (CUDA-core GEMV, pack 8)",
    "kg_unpack<KG_E4M3, 4>",
    "kg_unpack<KG_E4M3, 2>",
    "kg_unpack<KG_E4M3, 1>",
    "kg_e4m3x2_to_f32_sw (software pairs)",
    "kg_e4m3x2_to_f32 (this target's pairs)",
    "kg_e4m3x2_to_x2<KG_F16> * kg_e4m3x2_unscale (mma, f16)",
    "kg_e4m3x2_to_x2<KG_BF16> * kg_e4m3x2_unscale (mma, bf16)",
    "kg_e4m3x2_to_x2_sw<KG_F16> * 256 (mma software, f16)",
    "kg_e4m3x2_to_x2_sw<KG_BF16> * 256 (mma software, bf16)",
};

// Code of byte position b (0..7) in thread i: every code at every position.
__host__ __device__ inline uint32_t code(int i, int b) { return (uint32_t)(i + 37 * b) & 0xFFu; }

__device__ float bf16lo(uint32_t v) { return __uint_as_float(v << 16); }
__device__ float bf16hi(uint32_t v) { return __uint_as_float(v & 0xFFFF0000u); }

// out[(path * 256 + i) * 8 + b]: the decode of code(i, b); hw: KG_E4M3_HW.
__global__ void decode_all(float* out, int* hw) {
  const int i = threadIdx.x;
  uint32_t w[4] = {0, 0, 0, 0};
  for (int b = 0; b < 8; ++b) w[b / 4] |= code(i, b) << (8 * (b % 4));
  float* o = out + (size_t)i * 8;
  auto put = [&](int path, int b, float v) { o[(size_t)path * 256 * 8 + b] = v; };
  for (int b = 0; b < 8; ++b) put(P_BYTE, b, kg_e4m3_to_f32(code(i, b)));
  {
    float f[8];
    kg_unpack<KG_E4M3, 8>(w, f);
    for (int b = 0; b < 8; ++b) put(P_UNPACK8, b, f[b]);
  }
  for (int wi = 0; wi < 2; ++wi) {  // pack 4: one word at a time
    const uint32_t v[4] = {w[wi], 0, 0, 0};
    float f[4];
    kg_unpack<KG_E4M3, 4>(v, f);
    for (int b = 0; b < 4; ++b) put(P_UNPACK4, 4 * wi + b, f[b]);
  }
  for (int p = 0; p < 4; ++p) {  // pack 2: two bytes, as kg_load<2> leaves them
    const uint32_t v[4] = {(w[p / 2] >> (16 * (p % 2))) & 0xFFFFu, 0, 0, 0};
    float f[2];
    kg_unpack<KG_E4M3, 2>(v, f);
    put(P_UNPACK2, 2 * p, f[0]);
    put(P_UNPACK2, 2 * p + 1, f[1]);
  }
  for (int b = 0; b < 8; ++b) {  // pack 1: one byte
    const uint32_t v[4] = {code(i, b), 0, 0, 0};
    float f[1];
    kg_unpack<KG_E4M3, 1>(v, f);
    put(P_UNPACK1, b, f[0]);
  }
  for (int wi = 0; wi < 2; ++wi) {
    float a, b2, c, d;
    kg_e4m3x2_to_f32_sw<0>(w[wi], a, b2);
    kg_e4m3x2_to_f32_sw<1>(w[wi], c, d);
    put(P_X2_SW, 4 * wi, a); put(P_X2_SW, 4 * wi + 1, b2); put(P_X2_SW, 4 * wi + 2, c); put(P_X2_SW, 4 * wi + 3, d);
    kg_e4m3x2_to_f32<0>(w[wi], a, b2);
    kg_e4m3x2_to_f32<1>(w[wi], c, d);
    put(P_X2, 4 * wi, a); put(P_X2, 4 * wi + 1, b2); put(P_X2, 4 * wi + 2, c); put(P_X2, 4 * wi + 3, d);
    const uint32_t h[4] = {kg_e4m3x2_to_x2<KG_F16, 0>(w[wi]), kg_e4m3x2_to_x2<KG_F16, 1>(w[wi]),
                           kg_e4m3x2_to_x2_sw<KG_F16, 0>(w[wi]), kg_e4m3x2_to_x2_sw<KG_F16, 1>(w[wi])};
    const uint32_t bf[4] = {kg_e4m3x2_to_x2<KG_BF16, 0>(w[wi]), kg_e4m3x2_to_x2<KG_BF16, 1>(w[wi]),
                            kg_e4m3x2_to_x2_sw<KG_BF16, 0>(w[wi]), kg_e4m3x2_to_x2_sw<KG_BF16, 1>(w[wi])};
    for (int hh = 0; hh < 2; ++hh) {
      // The kernels' last step: the f32 sum times kg_e4m3x2_unscale (or 256).
      put(P_MMA_F16, 4 * wi + 2 * hh, kg_f16_to_f32(h[hh] & 0xFFFFu) * kg_e4m3x2_unscale);
      put(P_MMA_F16, 4 * wi + 2 * hh + 1, kg_f16_to_f32(h[hh] >> 16) * kg_e4m3x2_unscale);
      put(P_MMA_BF16, 4 * wi + 2 * hh, bf16lo(bf[hh]) * kg_e4m3x2_unscale);
      put(P_MMA_BF16, 4 * wi + 2 * hh + 1, bf16hi(bf[hh]) * kg_e4m3x2_unscale);
      put(P_MMA_F16_SW, 4 * wi + 2 * hh, kg_f16_to_f32(h[2 + hh] & 0xFFFFu) * 256.0f);
      put(P_MMA_F16_SW, 4 * wi + 2 * hh + 1, kg_f16_to_f32(h[2 + hh] >> 16) * 256.0f);
      put(P_MMA_BF16_SW, 4 * wi + 2 * hh, bf16lo(bf[2 + hh]) * 256.0f);
      put(P_MMA_BF16_SW, 4 * wi + 2 * hh + 1, bf16hi(bf[2 + hh]) * 256.0f);
    }
  }
  if (i == 0) *hw = KG_E4M3_HW;
}

int main() {
  const size_t n = (size_t)NPATH * 256 * 8;
  float* d;
  int* dhw;
  if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess || cudaMalloc(&dhw, sizeof(int)) != cudaSuccess) {
    printf("fp8codes: cudaMalloc failed (no GPU?)\n");
    return 2;
  }
  cudaMemset(d, 0xFF, n * sizeof(float));
  decode_all<<<1, 256>>>(d, dhw);
  static float h[(size_t)NPATH * 256 * 8];
  int hw = -1;
  cudaError_t err = cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  if (err == cudaSuccess) err = cudaMemcpy(&hw, dhw, sizeof(int), cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    printf("fp8codes: %s\n", cudaGetErrorString(err));
    return 2;
  }
  printf("fp8codes: device path KG_E4M3_HW %d (%s)\n", hw, hw == 1 ? "cvt.rn.f16x2.e4m3x2" : hw == 0 ? "software" : "?");
  int failed = 0;
  for (int p = 0; p < NPATH; ++p) {
    int bad = 0;
    for (int i = 0; i < 256; ++i)
      for (int b = 0; b < 8; ++b) {
        const uint32_t c = code(i, b), want = kWant[c];
        uint32_t got;
        std::memcpy(&got, &h[((size_t)p * 256 + i) * 8 + b], 4);
        const bool ok = want == 0x7FC00000u ? std::isnan(h[((size_t)p * 256 + i) * 8 + b]) : got == want;
        if (!ok && bad++ < 4) printf("  %s: code 0x%02X at byte %d: got 0x%08X (%g), want 0x%08X\n", kPath[p], c, b, got, h[((size_t)p * 256 + i) * 8 + b], want);
      }
    printf("%-4s %s: %d of 2048 (256 codes x 8 byte positions) exact\n", bad ? "FAIL" : "ok", kPath[p], 2048 - bad);
    failed += bad != 0;
  }
  printf(failed ? "fp8codes: %d path(s) FAILED\n" : "fp8codes: every path exact on all 256 codes\n", failed);
  return failed ? 1 : 0;
}
