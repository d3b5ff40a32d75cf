#!/usr/bin/env bash
# Issue 12, the Q8_1 lane tile (one device call, DEADLINE seconds of wall):
# build the sm90 quantizer sources with nvcc, verify every quantizer variant
# through CUDA (byte for byte), memcheck the lane tiles on verify's tail
# shapes, copy bandwidth (torch, as bench/cublas.py) and the empty-kernel
# floor, bench Q8_K and Q8_1 (every tile, graph-timed) on
# bench/quant-shapes-12.yaml, and SASS + register use of the cubins.
# Needs bin/gen (CGO_ENABLED=0 go build -o bin/gen ./cmd/gen); writes
# $OUT/r.tgz and $OUT/log.txt.
set -u
DEADLINE=${DEADLINE:-300}
out=${OUT:-/tmp/kgen-out}; r=$out/r; mkdir -p "$r"
trap 'tar -C "$out" -czf "$out/r.tgz" r' EXIT
log() { echo "[+${SECONDS}s] $*" | tee -a "$out/log.txt"; }
t() { command timeout -k 3 "$@"; }
left() { echo $((DEADLINE - SECONDS)); }
phase() { local need=$1 cap=$2; shift 2; local l=$(( $(left) - 2 )); if [ "$l" -lt "$need" ]; then log "skip (${l}s left): $*"; return 0; fi; [ "$l" -lt "$cap" ] && cap=$l; t "$cap" "$@"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$out/log.txt"
mkdir -p /tmp/nv
nvcc -O3 -arch=sm_90 -o /tmp/empty bench/empty-launch.cu &
q=$(bash bench/nvcc-split.sh generated/hip/quant_q8k_sm90.hip 1 /tmp/nv 2> "$r/nvcc-q8k.txt") &&
q1=$(bash bench/nvcc-split.sh generated/hip/quant_q8_1_sm90.hip 1 /tmp/nv 2> "$r/nvcc-q81.txt") || { log "nvcc failed"; cat "$r"/nvcc-*.txt | tail -n 30 | tee -a "$out/log.txt"; exit 1; }
log "nvcc done"
wait
t 60 bin/gen verify --backend cuda --arch sm90 --module "$q,$q1" > "$r/verify-cuda.txt" 2>&1; echo "exit $?" >> "$r/verify-cuda.txt"
tail -n 3 "$r/verify-cuda.txt" | tee -a "$out/log.txt"
for v in quant_q8_1_bf16_lane quant_q8_1_f32_lane; do
  phase 10 30 compute-sanitizer --tool memcheck --print-limit 5 bin/gen verify --backend cuda --arch sm90 --module "$q1" --variant $v > "$r/memcheck-$v.txt" 2>&1
  tail -n 2 "$r/memcheck-$v.txt" | tee -a "$out/log.txt"
done
phase 10 20 python3 bench/copy-bw.py > "$r/copy.txt" 2>&1
tail -n 1 "$r/copy.txt" | tee -a "$out/log.txt"
phase 3 10 /tmp/empty > "$r/empty.txt" 2>&1; tail -n 5 "$r/empty.txt" | tee -a "$out/log.txt"
B="--reps 10 --dtypes f32,f16,bf16 --quant-shapes bench/quant-shapes-12.yaml --backend cuda --module $q,$q1"
# FAMS: the families benched (default both quantizers)
for f in ${FAMS:-quant_q8_1 quant_q8k}; do
  log "bench $f"
  phase 8 60 bin/gen bench $B --family $f --out "$r/$f-cuda.json" > "$r/$f-cuda.txt" 2>&1; log "exit $?"
done
# NCU=regex: Nsight Compute on the matching quant_q8_1 kernels at 4096 x 4096
# (f16, bf16): what limits them, and instructions executed per element
if [ -n "${NCU:-}" ]; then
  printf 'rows: [4096]\nk: [4096]\n' > /tmp/q.yaml
  log "ncu $NCU"
  phase 20 150 ncu --clock-control none -k "regex:$NCU" -c 8 --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
    --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,smsp__thread_inst_executed.sum' \
    bin/gen bench --backend cuda --family quant_q8_1 --module "$q1" --dtypes f16,bf16 --reps 1 --rounds 1 \
    --quant-shapes /tmp/q.yaml --out /tmp/ncu.json > "$r/ncu.txt" 2>&1
  log "ncu exit $?"
fi
# SASS of the lane kernels only (the whole file is 26 MB), register use of all
for c in /tmp/nv/*.cubin; do for k in $(cuobjdump -res-usage "$c" 2>/dev/null | grep -o 'quant_q8_1_[a-z0-9]*_lane'); do cuobjdump -sass -fun $k "$c"; done; done > "$r/sass-lane.txt" 2>&1
for c in /tmp/nv/*.cubin; do cuobjdump -res-usage "$c"; done > "$r/res.txt" 2>&1
grep -A1 "lane" "$r/res.txt" | tee -a "$out/log.txt"
log "end"
