// empty-launch.cu: the launch floor of `gen bench --launch graph` for an
// empty kernel: COPIES launches (gen bench rotates over at most 64 buffer
// copies) captured once into a CUDA graph, 3 warm-up replays, the median of
// 20 timed replays (CUDA events) divided by COPIES, as runtime/bench times a
// kernel. Grid BLOCKS x 1 of THREADS lanes, the quantizers' argument list.
// Then the memory floor of a one-row quantizer launched the same way
// (added 2026-12-05): a kernel that only moves one row's bytes, K = 4096
// f32 in (16 KiB, a 128-byte block a lane, 16-byte loads) and its Q8_1
// blocks out (36 bytes a lane), 2 workgroups of 64 lanes as the lane tile,
// each launch on its own copy of X and Y (as gen bench rotates them).
// nvcc -O3 -arch=sm_90 -o /tmp/empty bench/empty-launch.cu && /tmp/empty
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

extern "C" __global__ void kg_empty(const unsigned char*, unsigned*, int, int, int) {}

// A lane per 32-element block: loads its 128 bytes, stores 9 words (their
// xor, so that no load is dead).
extern "C" __global__ void kg_row_move(const unsigned char* x, unsigned* y, int, int, int) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  const uint4* p = (const uint4*)(x + (size_t)b * 128);
  unsigned w[8];
  for (int i = 0; i < 8; i++) {
    const uint4 v = p[i];
    w[i] = v.x ^ v.y ^ v.z ^ v.w;
  }
  for (int i = 0; i < 9; i++) y[(size_t)b * 9 + i] = w[i % 8] + i;
}

// The median of 20 replays (after 3 warm-ups) of a graph of `copies`
// launches captured from launch(i), per launch, in us.
template <class F>
float time_graph(cudaStream_t s, int copies, F launch) {
  cudaGraph_t g;
  cudaGraphExec_t ge;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  for (int i = 0; i < copies; i++) launch(i);
  cudaStreamEndCapture(s, &g);
  cudaGraphInstantiate(&ge, g, 0);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; i++) cudaGraphLaunch(ge, s);
  std::vector<float> t;
  for (int r = 0; r < 20; r++) {
    cudaEventRecord(a, s);
    cudaGraphLaunch(ge, s);
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1000.f / copies);
  }
  std::sort(t.begin(), t.end());
  return t[10];
}

int main() {
  const int copies = 64;
  const int shapes[][2] = {{1, 64}, {8, 32}, {8, 256}, {1, 256}};
  unsigned char* x;
  unsigned* y;
  cudaMalloc(&x, 1 << 20);
  cudaMalloc(&y, 1 << 20);
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (auto& sh : shapes) {
    const float us = time_graph(s, copies, [&](int) { kg_empty<<<sh[0], sh[1], 0, s>>>(x, y, 1, 4096, sh[0]); });
    printf("empty kernel grid %d x %d lanes, graph of %d: %.3f us per launch (median of 20)\n", sh[0], sh[1], copies, us);
  }
  // One row of K = 4096 f32: 128 blocks, 2 x 64 lanes, 64 copies.
  {
    const size_t xb = 4096 * 4, yb = 128 * 36;
    unsigned char* xs;
    unsigned* ys;
    cudaMalloc(&xs, copies * xb);
    cudaMalloc(&ys, copies * yb);
    cudaMemset(xs, 0, copies * xb);
    const float us = time_graph(s, copies, [&](int i) {
      kg_row_move<<<2, 64, 0, s>>>(xs + i * xb, (unsigned*)((unsigned char*)ys + i * yb), 1, 4096, 2);
    });
    printf("one-row move (K 4096 f32 in, 128 Q8_1 blocks out) grid 2 x 64 lanes, graph of %d: %.3f us a launch (median of 20)\n", copies, us);
  }
  return cudaGetLastError() != cudaSuccess;
}
