#!/usr/bin/env bash
# One GPU-machine call for new gemv tiles (TILES: a regex of tile names,
# default none; run 02x6 measured mmu, dropped since): nvcc of
# generated/hip/gemv_sm90.hip (12 parts) and of the TILES kernels alone
# (-Xptxas -v), gen verify of each of them and memcheck of MEMCHECK,
# cuBLAS (bench/cublas.py) and gen bench (graph-timed) of bf16 and fp8 on
# bench/gemv14-shapes.yaml at TOKENS (default 2, 4, 8), the same call.
# Needs bin/gen. Writes log.txt, ptxas.txt, verify.txt, memcheck.txt,
# cublas.json, cuda.json, cuda-fp8.json.
set -u
out=${OUT:-/tmp/kgen-out}; mkdir -p "$out"
log() { echo "[+${SECONDS}s] $*" | tee -a "$out/log.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee -a "$out/log.txt"
src=generated/hip/gemv_sm90.hip
mkdir -p /tmp/nu
awk -v tiles="${TILES:-none}" '!started && /^KG_KERNEL/ { started = 1 }
  !started { print; next }
  /^KG_KERNEL/ { keep = ($0 ~ ("_(" tiles ")\\(")) }
  keep { print }' "$src" > /tmp/nu/mmu.cu
cp generated/hip/kgen_hip.h /tmp/nu/
log "nvcc"
( nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -Xptxas -v -o /tmp/nu/mmu.cubin /tmp/nu/mmu.cu > /tmp/nu/ptxas.raw 2>&1; echo "rc $?" >> /tmp/nu/ptxas.raw ) &
p1=$!
g=$(bash bench/nvcc-split.sh "$src" 12 /tmp/nv) || { log "nvcc gemv failed"; exit 1; }
wait $p1
grep -E "Compiling entry|registers|spill" /tmp/nu/ptxas.raw | paste - - - | sed -E 's/ptxas info *: //g; s/Compiling entry function .(gemv_[a-z0-9_]+). for .sm_90./\1/' > "$out/ptxas.txt"
log "nvcc done"
log "verify"
for v in $(grep -oE '^KG_KERNEL\([0-9]+\) gemv_[a-z0-9_]+' /tmp/nu/mmu.cu | awk '{print $2}' | sort -u); do
  timeout -k 5 30 bin/gen verify --backend cuda --arch sm90 --module /tmp/nu/mmu.cubin --variant "$v" 2>&1 | tail -n 1
done > "$out/verify.txt" 2>&1
echo "passed: $(grep -c '1 passed, 0 failed' "$out/verify.txt") of $(wc -l < "$out/verify.txt")" | tee -a "$out/log.txt"
for v in ${MEMCHECK:-}; do
  echo "== $v"; timeout -k 5 60 compute-sanitizer --tool memcheck --print-limit 5 bin/gen verify --backend cuda --arch sm90 --module /tmp/nu/mmu.cubin --variant "$v" 2>&1 | tail -n 2
done > "$out/memcheck.txt" 2>&1
grep -c "ERROR SUMMARY: 0 errors" "$out/memcheck.txt" | sed 's/^/memcheck clean: /' | tee -a "$out/log.txt"
sed -E "s/^tokens: .*/tokens: [${TOKENS:-2, 4, 8}]/" bench/gemv14-shapes.yaml > /tmp/nu/shapes.yaml
log "cublas"
PYTHONUNBUFFERED=1 timeout -k 5 120 python3 bench/cublas.py /tmp/nu/shapes.yaml "$out/cublas.json" bf16 > /tmp/nu/cublas.txt 2>&1; tail -n 1 /tmp/nu/cublas.txt | tee -a "$out/log.txt"
for dt in bf16 fp8e4m3_bf16; do
  o=cuda; [ $dt = bf16 ] || o=cuda-fp8
  log "bench $dt"
  timeout -k 10 ${BUDGET_BENCH:-150} bin/gen bench --backend cuda --module "$g" --dtypes $dt --reps ${REPS:-10} --shapes /tmp/nu/shapes.yaml --out "$out/$o.json" > /tmp/nu/$o.txt 2>&1
  log "bench $dt exit $?"
done
log "done"
