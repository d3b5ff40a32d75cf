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

#define KG_DEVICE static inline
#define KG_KERNEL(wg) extern "C" void
#define KG_SHARED static
#define __restrict__ __restrict

// Provided by the driver the test generates.
struct kg_sim_lane {
  int tid, bx, by;
};
extern kg_sim_lane kg_sim;       // the lane running now
void kg_sim_barrier();           // every lane of the workgroup meets here
extern uint32_t kg_sim_slots[];  // one per lane, for shuffles

KG_DEVICE int kg_tid() { return kg_sim.tid; }
KG_DEVICE int kg_bid_x() { return kg_sim.bx; }
KG_DEVICE int kg_bid_y() { return kg_sim.by; }
KG_DEVICE void kg_sync() { kg_sim_barrier(); }
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
