#version 450
// The Vulkan path's bandwidth roof for streaming kernels: Y = X, 16 bytes a
// lane, 256 lanes a workgroup, the grid covering n 16-byte words
// (push constant n; x * y workgroups when n / 256 exceeds 65535).
layout(local_size_x = 256) in;
layout(push_constant) uniform Push { uint n; } pc;
layout(std430, binding = 0) readonly buffer X { uvec4 x[]; };
layout(std430, binding = 1) writeonly buffer Y { uvec4 y[]; };
void main() {
  const uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
  if (i < pc.n) y[i] = x[i];
}
