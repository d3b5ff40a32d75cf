#!/usr/bin/env bash
# Run on the H200 machine (bin/gen built with CGO_ENABLED=0; .gl/ holds the
# Vulkan loader .debs): kgen GEMV through CUDA (the sm90 HIP sources, nvcc)
# and through NVIDIA's Vulkan driver (SPIR-V), cuBLAS and copy bandwidth for
# the same suite, all in one run; then gen tune on a short list.
set -u
out=${OUT:-/tmp/kgen-out}; mkdir -p "$out"
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
( nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o /tmp/gemv_sm90.cubin generated/hip/gemv_sm90.hip; echo "nvcc exit $? at ${SECONDS}s" ) > "$out/nvcc.txt" 2>&1 &
PYTHONUNBUFFERED=1 python3 bench/cublas.py bench/decode-shapes.yaml "$out/cublas.json" bf16 > "$out/cublas.txt" 2>&1; tail -n 1 "$out/cublas.txt"
bin/gen bench --backend vulkan --dtypes bf16 --out "$out/vulkan.json" > "$out/vulkan.txt" 2>&1; echo "vulkan bench exit $? at ${SECONDS}s"
wait; cat "$out/nvcc.txt"
bin/gen bench --backend cuda --module /tmp/gemv_sm90.cubin --dtypes bf16 --out "$out/cuda.json" --tune-cache "$out/tune-bench.json" > "$out/cuda.txt" 2>&1; echo "cuda bench exit $? at ${SECONDS}s"
bin/gen tune --module /tmp/gemv_sm90.cubin --shapes bench/shapes-qwen3-0.6b.yaml --cache "$out/tune.json" > "$out/tune.txt" 2>&1; echo "tune exit $?"; tail -n 2 "$out/tune.txt"
left=$(( ${BUDGET:-540} - SECONDS )); [ $left -gt 30 ] && timeout $left bin/gen bench --backend cuda --module /tmp/gemv_sm90.cubin --dtypes fp8e4m3_bf16 --out "$out/cuda-fp8.json" > "$out/cuda-fp8.txt" 2>&1; echo "fp8 bench at ${SECONDS}s"
