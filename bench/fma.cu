// Arithmetic rate on the CUDA path: bench/vk/fma.comp's kernel (8
// independent chains of f32 FMAs, or u32 multiply-adds, per lane), 4224
// blocks of 256, timed with events over argv[1] (default 20) launches
// after a warm-up. Prints the rate; with fma.comp's rate from vktime in the
// same call, the ratio of the SM clocks the two paths run at when bound by
// issue. Compare the f32 figures only: nvcc folds consecutive multiply-adds
// by constants into one, so its u32 figure (run 2026-12-05b: 4x the Vulkan
// one, beyond the hardware's IMAD rate) is not a rate; f32 FMA chains
// cannot be folded (each rounds).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

template <int MODE>
__global__ void chains(unsigned *o, unsigned iters) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  if (MODE == 0) {
    float a[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) a[j] = float(g + j);
    for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
      for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], 0.9999f, 0.5f);
    }
    float s = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) s += a[j];
    o[g] = __float_as_uint(s);
  } else {
    unsigned a[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) a[j] = g + j;
    for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
      for (int j = 0; j < 8; ++j) a[j] = a[j] * 0x9E3779B1u + 0x7F4A7C15u;
    }
    unsigned s = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) s ^= a[j];
    o[g] = s;
  }
}

template <int MODE>
static void run(unsigned *o, unsigned blocks, unsigned iters, int n) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  chains<MODE><<<blocks, 256>>>(o, iters);
  cudaEventRecord(a);
  for (int i = 0; i < n; ++i) chains<MODE><<<blocks, 256>>>(o, iters);
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  double us = ms * 1000.0 / n, ops = double(blocks) * 256 * iters * 16;
  printf("%s: %u blocks of 256, %u iters: %.1f us a launch, %.1f T%s/s\n", MODE == 0 ? "f32 fma" : "u32 mad", blocks, iters, us,
         ops / us / 1e6, MODE == 0 ? "flop" : "op");
}

int main(int argc, char **argv) {
  const unsigned blocks = 4224, iters = 4096;
  const int n = argc > 1 ? atoi(argv[1]) : 20;  // launches timed
  unsigned *o;
  if (cudaMalloc(&o, blocks * 256 * 4) != cudaSuccess) return 1;
  run<0>(o, blocks, iters, n);
  run<1>(o, blocks, iters, n);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
