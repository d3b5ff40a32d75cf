#!/usr/bin/env bash
# One device call for the mmvq family's Vulkan path against ggml's Vulkan
# mul_mat_vec on the H200, both timing modes (run 2026-12-02vk3, notes in
# bench/results/h200-2026-12-02vk3-notes.md), on the ggml shape
# (bench/mmvq-ggml.yaml, 4096 x 14336, tokens 1..5 and 8; q4_k, q6_k, q8_0):
#   1. gen bench --timing rotate (timestamps, buffers rotated past the L2),
#      every tile, --pair f32
#   2. gen verify --backend vulkan --family mmvq (every variant)
#   3. gen bench --timing ggml (the op repeated on the same buffers in one
#      command buffer, host wall clock / repeats, as test-backend-ops),
#      --pair f32 (KGEN_FORCE=mmvq:dot=khr narrows only the heuristic pick:
#      runtime.Tune still sweeps every tile, so in run 02vk3 this step ran
#      out of its budget after 13 of 18 cases)
#   4. ggml's test-backend-ops on the same weight types (.peers/ggml-vulkan,
#      carried), with whatever is left (>= 120 s when 1-3 run as planned)
# Each step has a budget under DEADLINE (seconds from the start, default 250).
# Needs bin/gen (CGO_ENABLED=0) and .gl/ (the Vulkan loader .debs).
# Everything lands in $OUT/r and, packed, $OUT/r.tgz.
set -u
out=${OUT:-/tmp/kgen-out}; r=$out/r; mkdir -p "$r"
pack() { tar -C "$out" -czf "$out/r.tgz" r; }
trap pack EXIT
DEADLINE=${DEADLINE:-250}
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export KGEN_TUNE_CACHE=off
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$r/gpu.txt"
log() { echo "[$(date +%T) +${SECONDS}s] $*" | tee -a "$r/log.txt"; }
budget() { local left=$((DEADLINE - SECONDS - 3)); local b=$1; [ $left -lt $b ] && b=$left; [ $b -lt 1 ] && b=1; echo $b; }
timeout() { command timeout -k 5 "$@"; }
B="bin/gen bench --backend vulkan --family mmvq --dtypes q4_k,q6_k,q8_0 --shapes bench/mmvq-ggml.yaml --pair f32"

log "bench mmvq vulkan, timing rotate"
timeout "$(budget ${BUDGET_ROTATE:-40})" $B --reps 10 --timing rotate --out "$r/mmvq-ggml-vulkan.json" > "$r/mmvq-ggml-vulkan.txt" 2>&1
log "rotate exit $? ($(grep -c heuristic "$r/mmvq-ggml-vulkan.txt") cases)"

log "verify vulkan mmvq"
timeout "$(budget ${BUDGET_VERIFY:-80})" bin/gen verify --backend vulkan --family mmvq > "$r/verify-vulkan.txt" 2>&1
echo "exit $?" >> "$r/verify-vulkan.txt"
tail -n 2 "$r/verify-vulkan.txt" | tee -a "$r/log.txt"

log "bench mmvq vulkan, timing ggml (OpSDot tiles)"
KGEN_FORCE=mmvq:dot=khr timeout "$(budget ${BUDGET_GGMLSTYLE:-75})" $B --reps 5 --timing ggml --out "$r/mmvq-ggml-vulkan-ggmlstyle.json" > "$r/mmvq-ggml-vulkan-ggmlstyle.txt" 2>&1
log "ggml-style exit $? ($(grep -c heuristic "$r/mmvq-ggml-vulkan-ggmlstyle.txt") cases)"

log "ggml quant (q4_K, q6_K, q8_0)"
P='^type_a=(q4_K|q6_K|q8_0),type_b=f32,m=4096,n=[1-58],k=14336,bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1,' \
  OUTFILE="$r/ggml-quant.txt" timeout "$(budget 200)" bash .peers/ggml-vulkan/run.sh quant > "$r/ggml-quant-table.txt" 2>&1
log "ggml exit $?"
log "done"
