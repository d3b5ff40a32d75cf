// kgen_cpu_sim.h: the kg_* platform layer of kgen_hip.h for running a
// generated HIP source on the CPU (tests only: runtime/verify's
// TestHIPQuantOnCPU). kgen_hip.h includes it under -DKGEN_CPU_SIM.
//
// A workgroup runs as one coroutine per lane on one OS thread; kg_sync()
// switches to the next lane, so a lane resumes after a barrier only once
// every lane of the workgroup has reached it (the driver reports lanes that
// finish while others wait at a barrier: barrier divergence). A wave is
// `wave` consecutive lanes; kg_shfl_xor* exchange through a slot per lane
// between two barriers, so they need every lane of the workgroup to call
// them together, which the kernels' uniform control flow guarantees. LDS
// (KG_SHARED) is a static array. Float arithmetic is the host's IEEE
// binary32 (SSE: subnormals kept, no FMA, compiled with -ffp-contract=off).
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

#define KG_DEVICE static inline
#define KG_KERNEL(wg) extern "C" void
#define KG_KERNEL_MIN(wg, minb) extern "C" void
#define KG_SHARED static
#define __restrict__ __restrict

// Provided by the driver the test generates.
struct kg_sim_lane {
  int tid, bx, by;
};
extern kg_sim_lane kg_sim;       // the lane running now
extern int kg_sim_grid_x;        // workgroups in x (the driver sets it)
void kg_sim_barrier();           // every lane of the workgroup meets here
extern uint32_t kg_sim_slots[];  // one per lane, for shuffles

KG_DEVICE int kg_tid() { return kg_sim.tid; }
KG_DEVICE int kg_bid_x() { return kg_sim.bx; }
KG_DEVICE int kg_bid_y() { return kg_sim.by; }
KG_DEVICE int kg_nbid_x() { return kg_sim_grid_x; }
// Lanes seen (every lane's first segment ends at a kg_sync or an MMA), and
// per lane the barriers and MMA exchanges it has passed.
static int kg_sim_lanes;
static unsigned kg_sim_syncs[1024], kg_sim_mma_in[1024], kg_sim_mma_out[1024];
static uint32_t kg_sim_mma_ops[1024][6];
KG_DEVICE void kg_sim_seen() {
  if (kg_sim.tid + 1 > kg_sim_lanes) kg_sim_lanes = kg_sim.tid + 1;
}
// A barrier over lanes lo..hi-1 (hi < 0: every lane seen so far) counted
// in cnt: the lane waits until each of them has arrived, also when the
// lanes got here through different numbers of switches (a warp of the
// tensor-core tiles may run more MMAs than another); for kernels in
// lockstep it is one switch.
KG_DEVICE void kg_sim_meet(unsigned* cnt, int lo, int hi) {
  kg_sim_seen();
  const unsigned c = ++cnt[kg_sim.tid];
  for (bool all = false; !all;) {
    kg_sim_barrier();
    all = true;
    const int end = hi < 0 ? kg_sim_lanes : hi;
    for (int l = lo; l < end; ++l) all = all && cnt[l] >= c;
  }
}
// The workgroup barrier.
KG_DEVICE void kg_sync() { kg_sim_meet(kg_sim_syncs, 0, -1); }
// __syncwarp: the 32 lanes of the caller's warp.
static unsigned kg_sim_wsyncs[1024];
KG_DEVICE void kg_sim_syncwarp() {
  const int w0 = kg_sim.tid / 32 * 32;
  kg_sim_meet(kg_sim_wsyncs, w0, w0 + 32);
}
// mma.sync m16n8k32 s8 x s8 -> s32 for the 32 lanes of the caller's warp
// (fragments as kgen_hip.h documents them): each lane posts its operands,
// waits for the warp's, and computes its four results.
KG_DEVICE void kg_sim_mma_s8(int (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0, uint32_t b1) {
  kg_sim_seen();
  const int t = kg_sim.tid, w0 = t / 32 * 32, g = t % 32 / 4, q = t % 4;
  const unsigned mine = kg_sim_mma_in[t];
  for (bool all = false; !all;) {  // the warp has read the previous exchange
    all = true;
    for (int l = w0; l < w0 + 32; ++l) all = all && kg_sim_mma_out[l] >= mine;
    if (!all) kg_sim_barrier();
  }
  const uint32_t ops[6] = {a0, a1, a2, a3, b0, b1};
  memcpy(kg_sim_mma_ops[t], ops, sizeof ops);
  const unsigned c = ++kg_sim_mma_in[t];
  for (bool all = false; !all;) {
    kg_sim_barrier();
    all = true;
    for (int l = w0; l < w0 + 32; ++l) all = all && kg_sim_mma_in[l] >= c;
  }
  auto s8 = [](uint32_t w, int k) { return (int)(int8_t)(w >> (8 * (k % 4))); };
  for (int i = 0; i < 4; ++i) {
    const int r = g + 8 * (i / 2), n = 2 * q + i % 2;
    int acc = d[i];
    for (int k = 0; k < 32; ++k) {
      const int la = w0 + (r % 8) * 4 + (k % 16) / 4, lb = w0 + n * 4 + (k % 16) / 4;
      acc += s8(kg_sim_mma_ops[la][(r >= 8) + 2 * (k >= 16)], k) * s8(kg_sim_mma_ops[lb][4 + (k >= 16)], k);
    }
    d[i] = acc;
  }
  kg_sim_mma_out[t] = c;
}
KG_DEVICE void kg_fence() {}
KG_DEVICE unsigned kg_atomic_inc(unsigned* p) { return (*p)++; }
KG_DEVICE float kg_bits_to_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
KG_DEVICE uint32_t kg_shfl_xor_u32(uint32_t v, int m, int wave) {
  kg_sim_barrier();
  kg_sim_slots[kg_sim.tid] = v;
  kg_sim_barrier();
  const int t = kg_sim.tid;
  return kg_sim_slots[t / wave * wave + ((t % wave) ^ m)];
}
KG_DEVICE float kg_shfl_xor(float v, int m, int wave) {
  uint32_t u;
  memcpy(&u, &v, 4);
  return kg_bits_to_f32(kg_shfl_xor_u32(u, m, wave));
}
KG_DEVICE float kg_f16_to_f32(uint32_t h) { return (float)__builtin_bit_cast(_Float16, (uint16_t)h); }
// Division: the host's (correctly rounded) with KG_FDIV_RN 1, the default:
// the path CUDA and AMD builds take. The test also builds each source with
// -DKG_FDIV_RN=0 -DKG_SIM_DIV_SKEW: then every quotient is moved by a
// pseudo-random -3..3 ulps, or garbled one time in eight, so the kernels'
// certification (the path of the Vulkan kernels, in C++) must correct it
// or fall back to long division.
#ifndef KG_FDIV_RN
#define KG_FDIV_RN 1
#endif
KG_DEVICE float kg_fdiv(float a, float b) {
  float q = a / b;
#ifdef KG_SIM_DIV_SKEW
  uint32_t ua, ub, c;
  memcpy(&ua, &a, 4);
  memcpy(&ub, &b, 4);
  memcpy(&c, &q, 4);
  uint32_t h = (ua * 0x9E3779B1u) ^ (ub * 0x85EBCA77u);
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  const uint32_t k = h % 8u;
  c = k == 7u ? c ^ 0x00400000u ^ ((h >> 8) & 0x7F800000u) : c + k - 3u;
  memcpy(&q, &c, 4);
#endif
  return q;
}
template <typename T> KG_DEVICE T min(T a, T b) { return a < b ? a : b; }
