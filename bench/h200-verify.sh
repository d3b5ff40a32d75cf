#!/usr/bin/env bash
# Run on the H200 machine (see /work/.library/device): verify every variant
# there. SPIR-V through NVIDIA's Vulkan driver; the HIP sources of arch sm90
# through nvcc and the CUDA driver API; compute-sanitizer on tail shapes.
# Needs bin/gen (CGO_ENABLED=0 go build -o bin/gen ./cmd/gen) and .gl/ (the
# Vulkan loader .debs from shared/device/gl).
set -u
out=${OUT:-/tmp/kgen-out}; mkdir -p "$out"
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
( /usr/bin/time -f "nvcc %es" nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o /tmp/gemv_sm90.cubin generated/hip/gemv_sm90.hip ) > "$out/nvcc.txt" 2>&1 &
bin/gen verify --backend vulkan > "$out/verify-vulkan.txt" 2>&1; echo "vulkan verify exit $?"; tail -n 3 "$out/verify-vulkan.txt"
wait; cat "$out/nvcc.txt"
bin/gen verify --backend cuda --arch sm90 --module /tmp/gemv_sm90.cubin > "$out/verify-cuda.txt" 2>&1; echo "cuda verify exit $?"; tail -n 3 "$out/verify-cuda.txt"
for v in gemv_bf16_p8_r4_t8_sk8 gemv_fp8e4m3_f16_p8_r2_t4_wg512 gemv_f32_p4_r1_t8_sg; do
  compute-sanitizer --tool memcheck --print-limit 5 bin/gen verify --backend cuda --arch sm90 --module /tmp/gemv_sm90.cubin --variant "$v" 2>&1 | tail -n 2
done | tee "$out/memcheck.txt"
