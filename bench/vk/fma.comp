#version 450
// Arithmetic rate on the Vulkan path (vktime): each lane runs 8
// independent chains of `iters` f32 FMAs (MODE 0) or u32 multiply-adds
// (MODE 1); 16 flops (or ops) a lane an iteration. bench/fma.cu is the same
// kernel for CUDA: the ratio of the two rates is the ratio of the clocks
// the two paths run the SMs at, for shaders bound by issue.
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint MODE = 0u;
layout(push_constant) uniform P { uint iters; } pc;
layout(std430, binding = 0) writeonly buffer O { uint o[]; };
void main() {
  const uint g = gl_GlobalInvocationID.x;
  if (MODE == 0u) {
    float a[8];
    [[unroll]] for (uint j = 0u; j < 8u; ++j) a[j] = float(g + j);
    for (uint i = 0u; i < pc.iters; ++i) {
      [[unroll]] for (uint j = 0u; j < 8u; ++j) a[j] = fma(a[j], 0.9999, 0.5);
    }
    float s = 0.0;
    [[unroll]] for (uint j = 0u; j < 8u; ++j) s += a[j];
    o[g] = floatBitsToUint(s);
  } else {
    uint a[8];
    [[unroll]] for (uint j = 0u; j < 8u; ++j) a[j] = g + j;
    for (uint i = 0u; i < pc.iters; ++i) {
      [[unroll]] for (uint j = 0u; j < 8u; ++j) a[j] = a[j] * 0x9E3779B1u + 0x7F4A7C15u;
    }
    uint s = 0u;
    [[unroll]] for (uint j = 0u; j < 8u; ++j) s ^= a[j];
    o[g] = s;
  }
}
