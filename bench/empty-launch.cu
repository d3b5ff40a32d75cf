// empty-launch.cu: the launch floor of `gen bench --launch graph` for an
// empty kernel: COPIES launches (gen bench rotates over at most 64 buffer
// copies) captured once into a CUDA graph, 3 warm-up replays, the median of
// 20 timed replays (CUDA events) divided by COPIES, as runtime/bench times a
// kernel. Grid BLOCKS x 1 of THREADS lanes, the quantizers' argument list.
// nvcc -O3 -arch=sm_90 -o /tmp/empty bench/empty-launch.cu && /tmp/empty
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

extern "C" __global__ void kg_empty(const unsigned char*, unsigned*, int, int, int) {}

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
    cudaGraph_t g;
    cudaGraphExec_t ge;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    for (int i = 0; i < copies; i++) kg_empty<<<sh[0], sh[1], 0, s>>>(x, y, 1, 4096, sh[0]);
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
    printf("empty kernel grid %d x %d lanes, graph of %d: %.3f us per launch (median of 20)\n", sh[0], sh[1], copies, t[10]);
  }
  return cudaGetLastError() != cudaSuccess;
}
