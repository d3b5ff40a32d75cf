#!/usr/bin/env bash
# Run on the H200 machine: kgen GEMV (CUDA path, heuristic and tuned pick)
# and cuBLAS + copy bandwidth for the same suite, in one run.
set -u
out=${OUT:-/tmp/kgen-out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o /tmp/gemv_sm90.cubin generated/hip/gemv_sm90.hip || exit 1
PYTHONUNBUFFERED=1 python3 bench/cublas.py bench/decode-shapes.yaml "$out/cublas.json" bf16 > "$out/cublas.txt" 2>&1; tail -n 2 "$out/cublas.txt"
bin/gen bench --arch sm90 --module /tmp/gemv_sm90.cubin --dtypes "${DTYPES:-bf16}" --out "$out/kgen.json" > "$out/kgen.txt" 2>&1; echo "bench exit $?"; tail -n 4 "$out/kgen.txt"
