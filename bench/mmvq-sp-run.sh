#!/usr/bin/env bash
# One GPU-machine call for the persistent streaming mmvq tiles (spP): nvcc of
# generated/hip/mmvq_sm90.hip (4 parts) and quant_q8_1, ptxas registers of the
# stream kernels, gen verify of the mmvq family on CUDA, compute-sanitizer
# memcheck of two sp variants, gen bench (graph-timed, q4_k) on the target and
# rest suites at TOKENS (default 1,2), ncu sections of NCU_KERNELS on one
# case (NCU_CASE "tokens n k"). Needs bin/gen. Writes log.txt, verify.txt,
# memcheck.txt, ncu.txt, bench-target.json, bench-rest.json, ptxas.txt.
set -u
out=${OUT:-/tmp/kgen-out}; mkdir -p "$out"
log() { echo "[+${SECONDS}s] $*" | tee -a "$out/log.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee -a "$out/log.txt"
log "nvcc"
src=generated/hip/mmvq_sm90.hip
mkdir -p /tmp/ns
awk '!started && /^KG_KERNEL/ { started = 1 }
  !started { print; next }
  /^KG_KERNEL/ { keep = ($0 ~ /_s[pwa][0-9]+\(/) }
  keep { print }' "$src" > /tmp/ns/sp.cu
cp generated/hip/kgen_hip.h /tmp/ns/
( nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -Xptxas -v -o /tmp/ns/sp.cubin /tmp/ns/sp.cu > /tmp/ns/ptxas.raw 2>&1; echo "rc $?" >> /tmp/ns/ptxas.raw ) &
p1=$!
mv=$(bash bench/nvcc-split.sh "$src" 4 /tmp/nm) || { log "nvcc mmvq failed"; exit 1; }
q1=$(bash bench/nvcc-split.sh generated/hip/quant_q8_1_sm90.hip 1 /tmp/nq) || { log "nvcc q8_1 failed"; exit 1; }
wait $p1
grep -E "Compiling entry|registers|spill" /tmp/ns/ptxas.raw | paste - - - | sed -E 's/ptxas info *: //g; s/Compiling entry function .(mmvq_[a-z0-9_]+). for .sm_90./\1/' > "$out/ptxas.txt"
log "nvcc done"
log "verify"
timeout -k 10 120 bin/gen verify --backend cuda --arch sm90 --family mmvq --module "$mv,$q1" > "$out/verify.txt" 2>&1; echo "exit $?" >> "$out/verify.txt"
grep -iE "fail" "$out/verify.txt" | head -n 12; tail -n 2 "$out/verify.txt"
log "memcheck"
for v in ${MEMCHECK:-mmvq_q4_k_r4_t2_sp8 mmvq_q4_k_r2_t1_sp16}; do
  echo "== $v"; timeout -k 10 90 compute-sanitizer --tool memcheck --print-limit 5 bin/gen verify --backend cuda --arch sm90 --module /tmp/ns/sp.cubin --variant "$v" 2>&1 | tail -n 3
done > "$out/memcheck.txt" 2>&1
grep -c "ERROR SUMMARY: 0 errors" "$out/memcheck.txt" | sed 's/^/memcheck clean: /' | tee -a "$out/log.txt"
tok=${TOKENS:-1, 2}
for s in target rest; do
  sed -E "s/^tokens: .*/tokens: [$tok]/" bench/mmvq-shapes-$s.yaml > /tmp/ns/$s.yaml
  log "bench $s"
  timeout -k 10 ${BUDGET_BENCH:-150} bin/gen bench --backend cuda --family mmvq --module "$mv,$q1" --dtypes q4_k --reps ${REPS:-10} --shapes /tmp/ns/$s.yaml --out "$out/bench-$s.json" > /tmp/ns/bench-$s.txt 2>&1
  log "bench $s exit $?"
done
if [ -n "${NCU_KERNELS:-}" ]; then
  read -r nt nn nk <<< "${NCU_CASE:-1 8192 5120}"
  printf 'tokens: [%s]\nmodels:\n  ncu:\n    case: {n: %s, k: %s}\n' "$nt" "$nn" "$nk" > /tmp/ns/ncu.yaml
  for k in $NCU_KERNELS; do
    log "ncu $k"
    { echo "==== $k m=$nt n=$nn k=$nk"
      timeout -k 5 60 ncu --clock-control none -k "$k" -c 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
        bin/gen bench --backend cuda --family mmvq --module "$mv,$q1" --dtypes q4_k --reps 1 --rounds 1 --shapes /tmp/ns/ncu.yaml --out /tmp/ns/ncu.json 2>&1 | grep -E '^    [A-Za-z]|==PROF==|==ERROR==|rror' | head -n 120
    } >> "$out/ncu.txt"
  done
fi
log "done"
