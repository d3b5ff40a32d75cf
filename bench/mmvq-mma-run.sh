#!/usr/bin/env bash
# One GPU-machine call for the mmvq tensor-core tiles (issue 11): nvcc build of
# the sm90 mmvq source (parts) and of its tensor-core kernels alone with
# -Xptxas -v (registers, spills) and their SASS, gen verify of the family,
# compute-sanitizer memcheck of one tile on tail shapes, then gen bench
# (graph-timed) on the target shapes and the rest of the suite. Needs bin/gen.
# Writes at most 8 files under $OUT.
set -u
out=${OUT:-/tmp/kgen-out}; mkdir -p "$out"
log() { echo "[+${SECONDS}s] $*" | tee -a "$out/log.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee -a "$out/log.txt"
src=generated/hip/mmvq_sm90.hip
mkdir -p /tmp/nm
awk '!started && /^KG_KERNEL\(/ { started = 1 }
  !started { print; next }
  /^KG_KERNEL\(/ { keep = ($0 ~ /_r[0-9]+_t[0-9]+_mm/) }
  keep { print }' "$src" > /tmp/nm/mma.cu
cp generated/hip/kgen_hip.h /tmp/nm/
log "nvcc"
( nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -Xptxas -v -o /tmp/nm/mma.cubin /tmp/nm/mma.cu > "$out/ptxas.txt" 2>&1; echo "rc $?" >> "$out/ptxas.txt" ) &
p1=$!
mv=$(bash bench/nvcc-split.sh "$src" 10 /tmp/nv) || { log "nvcc mmvq failed"; exit 1; }
q1=$(bash bench/nvcc-split.sh generated/hip/quant_q8_1_sm90.hip 1 /tmp/nq) || { log "nvcc q8_1 failed"; exit 1; }
wait $p1
log "nvcc done: $(grep -c 'registers' "$out/ptxas.txt") ptxas reports"
grep -E "Compiling entry|registers|spill" "$out/ptxas.txt" | paste - - - | sed -E 's/ptxas info *: //g' | awk '{print}' | tail -n 30
for k in mmvq_q4_k_r16_t1_mma128 mmvq_q4_k_r16_t8_mma128 mmvq_q4_k_r16_t8_mmd128; do
  cuobjdump -sass -fun "$k" /tmp/nm/mma.cubin > "/tmp/nm/$k.sass" 2>&1
  echo "== $k: $(grep -cE '^\s+/\*[0-9a-f]+\*/' "/tmp/nm/$k.sass") instructions"; grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9_.]+' "/tmp/nm/$k.sass" | awk '{print $2}' | sed -E 's/\..*//' | sort | uniq -c | sort -rn | head -14 | paste -sd' '
done | tee "$out/sass-summary.txt"
cat /tmp/nm/mmvq_q4_k_r16_t8_mma128.sass > "$out/sass-t8.txt"
log "verify"
timeout -k 10 90 bin/gen verify --backend cuda --arch sm90 --family mmvq --module "$mv" > "$out/verify.txt" 2>&1; echo "exit $?" >> "$out/verify.txt"
grep -iE "fail|mma|mmd" "$out/verify.txt" | head -n 12; tail -n 2 "$out/verify.txt"
log "memcheck"
m=/tmp/nm/mma.cubin
timeout -k 10 60 compute-sanitizer --tool memcheck --print-limit 5 bin/gen verify --backend cuda --arch sm90 --module "$m" --variant mmvq_q4_k_r16_t8_mmd128 > "$out/memcheck.txt" 2>&1
tail -n 3 "$out/memcheck.txt"
log "bench target"
timeout -k 10 ${BUDGET_T:-130} bin/gen bench --backend cuda --family mmvq --module "$mv,$q1" --dtypes q4_k --reps ${REPS:-10} --shapes bench/mmvq-shapes-target.yaml --out "$out/bench-target.json" > "$out/bench-target.txt" 2>&1
log "bench target exit $?"
log "bench rest"
timeout -k 10 ${BUDGET_R:-60} bin/gen bench --backend cuda --family mmvq --module "$mv,$q1" --dtypes q4_k --reps ${REPS:-10} --shapes bench/mmvq-shapes-rest.yaml --out "$out/bench-rest.json" > "$out/bench-rest.txt" 2>&1
log "bench rest exit $?"
log "done"
