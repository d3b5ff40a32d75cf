// kgen portability header: one kernel source builds three ways.
//   - HIP (hipcc, or clang -x hip with the real HIP headers): AMD GPUs.
//   - clang -x hip -nogpuinc -DKGEN_BARE: AMD code objects with no ROCm
//     install; everything a kernel uses is defined here from clang builtins.
//   - nvcc -x cu: NVIDIA GPUs, HIP names mapped to CUDA.
// (Tests add a fourth: -DKGEN_CPU_SIM runs a source on the CPU, one
// coroutine per lane, with the kg_* names from kgen_cpu_sim.h.)
// Kernels use only the kg_* names below, never the toolkit's directly.
#pragma once

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#include <stdint.h>
#define KG_DEVICE __device__ __forceinline__
#define KG_KERNEL(wg) extern "C" __global__ void __launch_bounds__(wg)
// ... and at least minb resident workgroups per SM (caps the registers)
#define KG_KERNEL_MIN(wg, minb) extern "C" __global__ void __launch_bounds__(wg, minb)
#define KG_SHARED __shared__
KG_DEVICE int kg_tid() { return threadIdx.x; }
KG_DEVICE int kg_bid_x() { return blockIdx.x; }
KG_DEVICE int kg_nbid_x() { return gridDim.x; }
KG_DEVICE int kg_bid_y() { return blockIdx.y; }
KG_DEVICE void kg_sync() { __syncthreads(); }
KG_DEVICE void kg_fence() { __threadfence(); }
KG_DEVICE unsigned kg_atomic_inc(unsigned* p) { return atomicAdd(p, 1u); }
KG_DEVICE float kg_shfl_xor(float v, int m, int) { return __shfl_xor_sync(0xffffffffu, v, m); }
KG_DEVICE float kg_f16_to_f32(uint32_t h) { return __half2float(__ushort_as_half((unsigned short)h)); }
KG_DEVICE float kg_bits_to_f32(uint32_t u) { return __uint_as_float(u); }
KG_DEVICE uint32_t kg_f32_bits(float f) { return __float_as_uint(f); }
KG_DEVICE uint32_t kg_shfl_xor_u32(uint32_t v, int m, int) { return __shfl_xor_sync(0xffffffffu, v, m); }
KG_DEVICE int kg_msb(uint32_t x) { return 31 - __clz((int)x); }
KG_DEVICE int kg_ctz(uint32_t x) { return __ffs((int)x) - 1; }  // x != 0
// Rounded to float on their own: never contracted into an FMA.
KG_DEVICE float kg_fmul_rn(float a, float b) { return __fmul_rn(a, b); }
KG_DEVICE float kg_fadd_rn(float a, float b) { return __fadd_rn(a, b); }
// Division correctly rounded (nearest even) whatever -prec-div or
// -use_fast_math say; -ftz=true flushes subnormal operands and results,
// which callers of kg_fdiv route elsewhere (see KG_FDIV_RN below).
KG_DEVICE float kg_fdiv(float a, float b) { return __fdiv_rn(a, b); }
#define KG_FDIV_RN 1
KG_DEVICE float kg_fmaf(float a, float b, float c) { return fmaf(a, b, c); }  // a * b + c, one rounding

#elif defined(KGEN_CPU_SIM)
#include "kgen_cpu_sim.h"

#elif defined(KGEN_BARE)
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned long size_t;
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define KG_DEVICE __attribute__((device)) __attribute__((always_inline)) inline
#define KG_KERNEL(wg) extern "C" __attribute__((global)) __attribute__((amdgpu_flat_work_group_size(1, wg))) void
#define KG_KERNEL_MIN(wg, minb) KG_KERNEL(wg)
#define KG_SHARED __attribute__((shared))
#define __restrict__ __restrict
KG_DEVICE int kg_tid() { return __builtin_amdgcn_workitem_id_x(); }
KG_DEVICE int kg_bid_x() { return __builtin_amdgcn_workgroup_id_x(); }
// workgroups in x: the grid's lanes (the dispatch packet) over the workgroup's
KG_DEVICE int kg_nbid_x() { return __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x(); }
KG_DEVICE int kg_bid_y() { return __builtin_amdgcn_workgroup_id_y(); }
KG_DEVICE void kg_sync() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
KG_DEVICE void kg_fence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
KG_DEVICE unsigned kg_atomic_inc(unsigned* p) {
  return __hip_atomic_fetch_add(p, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
KG_DEVICE float kg_shfl_xor(float v, int m, int wave) {
  int lane = __builtin_amdgcn_mbcnt_lo(~0u, 0);
  if (wave == 64) lane = __builtin_amdgcn_mbcnt_hi(~0u, lane);
  return __builtin_bit_cast(float, __builtin_amdgcn_ds_bpermute((lane ^ m) << 2, __builtin_bit_cast(int, v)));
}
KG_DEVICE uint32_t kg_shfl_xor_u32(uint32_t v, int m, int wave) {
  int lane = __builtin_amdgcn_mbcnt_lo(~0u, 0);
  if (wave == 64) lane = __builtin_amdgcn_mbcnt_hi(~0u, lane);
  return (uint32_t)__builtin_amdgcn_ds_bpermute((lane ^ m) << 2, (int)v);
}
KG_DEVICE float kg_f16_to_f32(uint32_t h) { return (float)__builtin_bit_cast(_Float16, (uint16_t)h); }
KG_DEVICE float kg_bits_to_f32(uint32_t u) { return __builtin_bit_cast(float, u); }
template <typename T> KG_DEVICE T min(T a, T b) { return a < b ? a : b; }

#else
#include <hip/hip_runtime.h>
#define KG_DEVICE __device__ __forceinline__
#define KG_KERNEL(wg) extern "C" __global__ void __launch_bounds__(wg)
#define KG_KERNEL_MIN(wg, minb) extern "C" __global__ void __launch_bounds__(wg)
#define KG_SHARED __shared__
KG_DEVICE int kg_tid() { return threadIdx.x; }
KG_DEVICE int kg_bid_x() { return blockIdx.x; }
KG_DEVICE int kg_nbid_x() { return gridDim.x; }
KG_DEVICE int kg_bid_y() { return blockIdx.y; }
KG_DEVICE void kg_sync() { __syncthreads(); }
KG_DEVICE void kg_fence() { __threadfence(); }
KG_DEVICE unsigned kg_atomic_inc(unsigned* p) { return atomicAdd(p, 1u); }
KG_DEVICE float kg_shfl_xor(float v, int m, int wave) { return __shfl_xor(v, m, wave); }
KG_DEVICE uint32_t kg_shfl_xor_u32(uint32_t v, int m, int wave) { return (uint32_t)__shfl_xor((int)v, m, wave); }
KG_DEVICE float kg_f16_to_f32(uint32_t h) { return (float)__builtin_bit_cast(_Float16, (uint16_t)h); }
KG_DEVICE float kg_bits_to_f32(uint32_t u) { return __builtin_bit_cast(float, u); }
#endif

#if !defined(__CUDACC__)
// clang (HIP and KGEN_BARE): bit casts, the leading bit, and a multiply and
// an add rounded on their own: HIP compiles with -ffp-contract=fast-honor-
// pragmas, and an operation outside `contract(off)` may be fused into an FMA.
KG_DEVICE uint32_t kg_f32_bits(float f) { return __builtin_bit_cast(uint32_t, f); }
KG_DEVICE int kg_msb(uint32_t x) { return 31 - __builtin_clz(x); }
KG_DEVICE int kg_ctz(uint32_t x) { return __builtin_ctz(x); }  // x != 0
KG_DEVICE float kg_fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }  // a * b + c, one rounding
KG_DEVICE float kg_fmul_rn(float a, float b) {
#pragma clang fp contract(off)
  return a * b;
}
KG_DEVICE float kg_fadd_rn(float a, float b) {
#pragma clang fp contract(off)
  return a + b;
}
#if !defined(KGEN_CPU_SIM)  // (the simulation defines its own)
// clang's f32 division: an LLVM fdiv with no fast-math flag and no
// !fpmath accuracy, which LLVM defines as correctly rounded, unless flags
// relax it; the AMDGPU backend lowers it to the full-precision sequence
// (v_div_scale, v_rcp, Newton steps as FMAs, v_div_fmas, v_div_fixup).
// gen/compile's TestHIPCompile checks both for every division of the
// quantizers: in the optimized IR and in the ISA. -ffast-math
// (__FAST_MATH__) makes it a reciprocal times a product, so then
// KG_FDIV_RN is 0 and callers certify the quotient;
// -fno-hip-fp32-correctly-rounded-divide-sqrt (2.5 ulps; amax / 127
// becomes a multiply) defines no macro: do not build the quantizers with it.
KG_DEVICE float kg_fdiv(float a, float b) {
#pragma clang fp contract(off)
  return a / b;
}
#if defined(__FAST_MATH__)
#define KG_FDIV_RN 0
#else
#define KG_FDIV_RN 1
#endif
#endif
#endif

// KG_FDIV_RN: 1 when kg_fdiv(a, b) is a / b correctly rounded for normal a
// and b with a normal quotient (subnormal operands and results depend on
// the denormal mode, so callers take another path for them); 0 when it is
// only an approximation, which callers must certify.

// Raw loads of 1..16 bytes into 32-bit words: 16-byte loads compile to
// global_load_dwordx4 / global_load_b128 (AMD) and LDG.128 (NVIDIA).
struct __attribute__((aligned(16))) kg_u4 { uint32_t x, y, z, w; };
struct __attribute__((aligned(8))) kg_u2 { uint32_t x, y; };

template <int BYTES>
KG_DEVICE void kg_load(uint32_t (&w)[4], const void* p) {
  if constexpr (BYTES == 16) {
    kg_u4 v = *(const kg_u4*)p;
    w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
  } else if constexpr (BYTES == 8) {
    kg_u2 v = *(const kg_u2*)p;
    w[0] = v.x; w[1] = v.y;
  } else if constexpr (BYTES == 4) {
    w[0] = *(const uint32_t*)p;
  } else if constexpr (BYTES == 2) {
    w[0] = *(const uint16_t*)p;
  } else {
    w[0] = *(const uint8_t*)p;
  }
}

// Bytes 2..5 of the 8 bytes lo, hi (little-endian): the word at a 2-byte
// offset, from two aligned loads.
KG_DEVICE uint32_t kg_funnel16(uint32_t lo, uint32_t hi) { return (lo >> 16) | (hi << 16); }

// c + the dot product of the four signed bytes of a and b. IDOT is the
// arch's instruction (its spec file's int_dot): sdot4 is v_dot4_i32_i8
// (gfx9 dot1-insts: gfx906, gfx90a, gfx942), sudot4 is v_dot4_i32_iu8 with
// both operands signed (gfx11 and gfx12 dot8-insts), dp4a is CUDA's
// __dp4a; none (and the CPU simulation) is plain integer math.
enum { KG_IDOT_NONE = 0, KG_IDOT_SDOT4 = 1, KG_IDOT_SUDOT4 = 2, KG_IDOT_DP4A = 3 };
template <int IDOT>
KG_DEVICE int kg_dot4(uint32_t a, uint32_t b, int c) {
#if defined(__CUDACC__)
  static_assert(IDOT == KG_IDOT_DP4A || IDOT == KG_IDOT_NONE, "int_dot on a cuda target: dp4a or none");
  if constexpr (IDOT == KG_IDOT_DP4A) return __dp4a((int)a, (int)b, c);
#elif !defined(KGEN_CPU_SIM)
  static_assert(IDOT != KG_IDOT_DP4A, "int_dot dp4a is for cuda targets");
  if constexpr (IDOT == KG_IDOT_SDOT4) return __builtin_amdgcn_sdot4((int)a, (int)b, c, false);
  if constexpr (IDOT == KG_IDOT_SUDOT4) return __builtin_amdgcn_sudot4(true, (int)a, true, (int)b, c, false);
#endif
  int s = c;
  for (int i = 0; i < 32; i += 8) s += ((int)(a << (24 - i)) >> 24) * ((int)(b << (24 - i)) >> 24);
  return s;
}

// OCP fp8 E4M3 (e4m3fn): bias 7, no infinities, S.1111.111 is NaN.
// Branch-free: the byte's exponent and mantissa moved into an f16's (sign
// to bit 15, E.MMM to bits 13..7) is the same number times 2^-8, subnormals
// included (f16 subnormals are never flushed, and an f16 converts to a normal
// f32 exactly); times 256 is exact. The only other case is NaN.
KG_DEVICE float kg_e4m3_to_f32(uint32_t b) {
  const float f = kg_f16_to_f32(((b & 0x80u) << 8) | ((b & 0x7Fu) << 7)) * 256.0f;
  return (b & 0x7Fu) == 0x7Fu ? kg_bits_to_f32(0x7FC00000u) : f;
}

// Element types of weights and activations.
enum { KG_F32 = 0, KG_F16 = 1, KG_BF16 = 2, KG_E4M3 = 3 };

template <int T> struct kg_type;
template <> struct kg_type<KG_F32> { static constexpr int bytes = 4; };
template <> struct kg_type<KG_F16> { static constexpr int bytes = 2; };
template <> struct kg_type<KG_BF16> { static constexpr int bytes = 2; };
template <> struct kg_type<KG_E4M3> { static constexpr int bytes = 1; };

// Element j (a compile-time index after unrolling) of loaded words.
template <int T>
KG_DEVICE float kg_elem(const uint32_t (&w)[4], int j) {
  if constexpr (T == KG_F32) {
    return kg_bits_to_f32(w[j]);
  } else if constexpr (T == KG_BF16) {
    return kg_bits_to_f32(((w[j >> 1] >> ((j & 1) * 16)) & 0xFFFFu) << 16);
  } else if constexpr (T == KG_F16) {
    return kg_f16_to_f32((w[j >> 1] >> ((j & 1) * 16)) & 0xFFFFu);
  } else {
    return kg_e4m3_to_f32((w[j >> 2] >> ((j & 3) * 8)) & 0xFFu);
  }
}

// Tensor-core MMA (NVIDIA sm_80+, target: cuda only): D = A(16x16) B(16x8) + D
// with f32 accumulation, A and B bf16 or f16 (XT). Fragments per lane
// (g = lane / 4, q = lane % 4), as PTX defines m16n8k16:
//   a0: A[g][2q..2q+1]  a1: A[g+8][2q..2q+1]  a2: A[g][2q+8..]  a3: A[g+8][2q+8..]
//   b0: B[2q..2q+1][g]  b1: B[2q+8..2q+9][g]
//   d0,d1: D[g][2q, 2q+1]  d2,d3: D[g+8][2q, 2q+1]
// Each a/b register holds two 16-bit elements, the lower k in the low half.
// e4m3 weights enter as 16-bit pairs (kg_e4m3x2_to_x2, in the fp8 section
// below; the kernel multiplies kg_e4m3x2_unscale back into its result): exact.
#if defined(__CUDACC__)
template <int XT>
KG_DEVICE void kg_mma_16x8x16(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0, uint32_t b1) {
  static_assert(XT == KG_BF16 || XT == KG_F16, "tensor-core GEMV takes bf16 or f16 activations");
  if constexpr (XT == KG_BF16) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  } else {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
}
#else
template <int XT>
KG_DEVICE void kg_mma_16x8x16(float (&)[4], uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t) {
  static_assert(XT < 0, "tensor-core (mma) GEMV tiles exist for target: cuda archs only; do not list them in an AMD arch's emit");
}
#endif

// Integer tensor-core MMA (NVIDIA sm_80+, target: cuda only): D = A(16x32)
// B(32x8) + D, s8 x s8 -> s32 (exact), for the quantized-weight GEMV's mma
// tiles. Fragments per lane (g = lane / 4, q = lane % 4), as PTX defines
// m16n8k32 .s8 (each register holds 4 int8, the lowest k in the low byte):
//   a0: A[g][4q..4q+3]  a1: A[g+8][4q..4q+3]  a2: A[g][4q+16..]  a3: A[g+8][4q+16..]
//   b0: B[4q..4q+3][g]  b1: B[4q+16..4q+19][g]
//   d0,d1: D[g][2q, 2q+1]  d2,d3: D[g+8][2q, 2q+1]
// TAG is any template argument of the caller (it keeps the AMD branch's
// refusal to the instantiations that reach it). kg_mma_s8_16x8x16 is the
// k16 shape: a0, a1 and b0 as above, k 16..31 absent (the CPU simulation
// runs it as k32 with those operands zero).
#if defined(__CUDACC__)
template <int TAG>
KG_DEVICE void kg_mma_s8_16x8x16(int (&d)[4], uint32_t a0, uint32_t a1, uint32_t b0) {
  asm("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a0), "r"(a1), "r"(b0));
}
template <int TAG>
KG_DEVICE void kg_mma_s8_16x8x32(int (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
#define KG_MMA_S8 1
#elif defined(KGEN_CPU_SIM)
template <int TAG>
KG_DEVICE void kg_mma_s8_16x8x16(int (&d)[4], uint32_t a0, uint32_t a1, uint32_t b0) {
  kg_sim_mma_s8(d, a0, a1, 0u, 0u, b0, 0u);
}
template <int TAG>
KG_DEVICE void kg_mma_s8_16x8x32(int (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0, uint32_t b1) {
  kg_sim_mma_s8(d, a0, a1, a2, a3, b0, b1);  // the warp's operands, exchanged (kgen_cpu_sim.h)
}
#define KG_MMA_S8 1
#else
template <int TAG>
KG_DEVICE void kg_mma_s8_16x8x16(int (&)[4], uint32_t, uint32_t, uint32_t) {
  static_assert(TAG < 0 && TAG >= 0, "integer tensor-core (mma) mmvq tiles exist for target: cuda archs only; do not list them in an AMD arch's emit");
}
template <int TAG>
KG_DEVICE void kg_mma_s8_16x8x32(int (&)[4], uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t) {
  static_assert(TAG < 0 && TAG >= 0, "integer tensor-core (mma) mmvq tiles exist for target: cuda archs only; do not list them in an AMD arch's emit");
}
#define KG_MMA_S8 0
#endif

// Warp barrier and 16-byte global -> LDS copies that complete later
// (staging for the mma tiles; TAG as above). CUDA: __syncwarp and sm80's
// cp.async through L1 (.ca: the workgroups of an SM copy the same activation
// blocks at about the same time; .cg, L2 only, measured in run
// h100-2026-12-06ca), committed as groups; kg_cp_wait<N>() waits
// until at most N of the lane's groups are pending. The CPU simulation:
// plain copies (complete at once) and a barrier over the warp's 32 lanes.
#if defined(__CUDACC__)
template <int TAG> KG_DEVICE void kg_syncwarp() { __syncwarp(); }
template <int TAG> KG_DEVICE void kg_cp_async16(uint32_t* lds, const uint8_t* g) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"((uint32_t)__cvta_generic_to_shared(lds)), "l"(g) : "memory");
}
template <int TAG> KG_DEVICE void kg_cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> KG_DEVICE void kg_cp_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }
#elif defined(KGEN_CPU_SIM)
template <int TAG> KG_DEVICE void kg_syncwarp() { kg_sim_syncwarp(); }
template <int TAG> KG_DEVICE void kg_cp_async16(uint32_t* lds, const uint8_t* g) {
  if ((reinterpret_cast<uintptr_t>(lds) | reinterpret_cast<uintptr_t>(g)) % 16 != 0) __builtin_trap();  // cp.async needs both 16-byte aligned
  memcpy(lds, g, 16);
}
template <int TAG> KG_DEVICE void kg_cp_commit() {}
template <int N> KG_DEVICE void kg_cp_wait() {}
#else
template <int TAG> KG_DEVICE void kg_syncwarp() {
  static_assert(TAG < 0 && TAG >= 0, "warp-staged (mms) mmvq tiles exist for target: cuda archs only");
}
template <int TAG> KG_DEVICE void kg_cp_async16(uint32_t*, const uint8_t*) {}
template <int TAG> KG_DEVICE void kg_cp_commit() {}
template <int N> KG_DEVICE void kg_cp_wait() {}
#endif

// ===== fp8 e4m3 decode (GEMV weights) =======================================
// OCP E4M3FN codes (bias 7, subnormals, no infinities, S.1111.111 NaN: the
// format of runtime/ref's E4M3ToF32) decoded exactly, by the hardware where
// the target's conversion is this format, else by kg_e4m3_to_f32 above. The
// arch decides through the target the source is built for:
//   KG_E4M3_HW 1: nvcc for sm_89+ (sm90): cvt.rn.f16x2.e4m3x2, two codes per
//                 instruction to an f16 pair (exact: every e4m3 value is an f16).
//   KG_E4M3_HW 2: clang for gfx12 (gfx1200): v_cvt_pk_f32_fp8
//                 (__builtin_amdgcn_cvt_pk_f32_fp8), two codes to two f32.
//   KG_E4M3_HW 0: software. gfx942 has v_cvt_pk_f32_fp8 too, but there it
//                 decodes the FNUZ variant (bias 8, 0x80 NaN, no -0), a
//                 different format: not used. gfx90a, gfx1100: no fp8
//                 conversions. -DKG_E4M3_SOFTWARE forces this path (to
//                 measure or test it); so does the CPU simulation.
// gen/compile's TestHIPCompile checks the ISA of every AMD arch for it, and
// bench/fp8codes.cu decodes all 256 codes on an NVIDIA GPU through every
// path below against runtime/ref's values.
#if defined(KG_E4M3_SOFTWARE) || defined(KGEN_CPU_SIM)
#define KG_E4M3_HW 0
#elif defined(__CUDACC__) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define KG_E4M3_HW 1
#elif !defined(__CUDACC__) && defined(__GFX12__)
#define KG_E4M3_HW 2
#else
#define KG_E4M3_HW 0
#endif

// Software: bytes 2*HALF and 2*HALF+1 of w -> lo, hi.
template <int HALF>
KG_DEVICE void kg_e4m3x2_to_f32_sw(uint32_t w, float& lo, float& hi) {
  lo = kg_e4m3_to_f32((w >> (16 * HALF)) & 0xFFu);
  hi = kg_e4m3_to_f32((w >> (16 * HALF + 8)) & 0xFFu);
}

// Bytes 2*HALF and 2*HALF+1 of w -> lo, hi (f32, exact).
template <int HALF>
KG_DEVICE void kg_e4m3x2_to_f32(uint32_t w, float& lo, float& hi) {
#if KG_E4M3_HW == 1
  uint32_t h;  // upper code -> upper half
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h) : "h"((unsigned short)(w >> (16 * HALF))));
  lo = kg_f16_to_f32(h & 0xFFFFu);
  hi = kg_f16_to_f32(h >> 16);
#elif KG_E4M3_HW == 2
  typedef float kg_f32x2 __attribute__((ext_vector_type(2)));
  const kg_f32x2 v = __builtin_amdgcn_cvt_pk_f32_fp8((int)w, HALF != 0);
  lo = v.x;
  hi = v.y;
#else
  kg_e4m3x2_to_f32_sw<HALF>(w, lo, hi);
#endif
}

// The PACK elements of loaded words as f32: kg_elem for every type, the
// e4m3 codes two at a time through kg_e4m3x2_to_f32 where the hardware
// converts them.
template <int T, int PACK>
KG_DEVICE void kg_unpack(const uint32_t (&w)[4], float (&f)[PACK]) {
  if constexpr (T == KG_E4M3 && KG_E4M3_HW != 0) {
    if constexpr (PACK >= 4) {
#pragma unroll
      for (int i = 0; i < PACK / 4; ++i) {
        kg_e4m3x2_to_f32<0>(w[i], f[4 * i], f[4 * i + 1]);
        kg_e4m3x2_to_f32<1>(w[i], f[4 * i + 2], f[4 * i + 3]);
      }
    } else if constexpr (PACK == 2) {
      kg_e4m3x2_to_f32<0>(w[0], f[0], f[1]);
    } else {
      float unused;
      kg_e4m3x2_to_f32<0>(w[0], f[0], unused);
    }
  } else {
#pragma unroll
    for (int j = 0; j < PACK; ++j) f[j] = kg_elem<T>(w, j);
  }
}

// Tensor-core operands (target cuda): bytes 2*HALF and 2*HALF+1 of w ->
// two 16-bit XT values, the lower byte's in the low half, equal to the
// e4m3 values divided by kg_e4m3x2_unscale (the kernel multiplies it back
// into its sums; exact either way).
#if defined(__CUDACC__)
// Software: sign to bit 15 and E.MMM to bits 13..7 is the f16 of the value
// times 2^-8 (subnormals included; NaN patched in).
template <int XT, int HALF>
KG_DEVICE uint32_t kg_e4m3x2_to_x2_sw(uint32_t w) {
  const uint32_t v = __byte_perm(w, 0u, HALF ? 0x4342 : 0x4140);  // bytes to bits 0..7 and 16..23
  uint32_t h = ((v << 8) & 0x80008000u) | ((v << 7) & 0x3F803F80u);  // f16 pair, value * 2^-8
  const uint32_t nan = __vcmpeq2(v & 0x007F007Fu, 0x007F007Fu);      // 0xFFFF where S.1111.111
  h = (h & ~nan) | (0x7E007E00u & nan);
  if constexpr (XT == KG_F16) {
    return h;
  } else {
    // f16 -> f32 is exact; f32 -> bf16 keeps these few bits exactly.
    const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&h));
    return __byte_perm(__float_as_uint(f.x), __float_as_uint(f.y), 0x7632);
  }
}
#if KG_E4M3_HW == 1
constexpr float kg_e4m3x2_unscale = 1.0f;  // the f16 pair is the value itself
template <int XT, int HALF>
KG_DEVICE uint32_t kg_e4m3x2_to_x2(uint32_t w) {
  uint32_t h;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h) : "h"((unsigned short)(w >> (16 * HALF))));
  if constexpr (XT == KG_F16) {
    return h;
  } else {
    const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&h));
    return __byte_perm(__float_as_uint(f.x), __float_as_uint(f.y), 0x7632);
  }
}
#else
constexpr float kg_e4m3x2_unscale = 256.0f;  // the software pairs are value * 2^-8
template <int XT, int HALF>
KG_DEVICE uint32_t kg_e4m3x2_to_x2(uint32_t w) { return kg_e4m3x2_to_x2_sw<XT, HALF>(w); }
#endif
#else
constexpr float kg_e4m3x2_unscale = 256.0f;
template <int XT, int HALF>
KG_DEVICE uint32_t kg_e4m3x2_to_x2(uint32_t) {
  static_assert(XT < 0, "tensor-core (mma) GEMV tiles exist for target: cuda archs only");
  return 0;
}
#endif
// ===== end of fp8 e4m3 decode ===============================================
