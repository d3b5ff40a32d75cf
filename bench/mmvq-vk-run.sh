#!/usr/bin/env bash
# One device call for the mmvq family's Vulkan path against ggml's Vulkan
# mul_mat_vec on the H200 (run 2026-12-02v, notes in bench/results/h200-2026-12-02v-notes.md): the ggml shape
# (bench/mmvq-ggml.yaml, 4096 x 14336, tokens 1..5 and 8) benched with every
# tile (q4_k, q6_k, q8_0; --pair f32: also after kgen's Q8_1 quantizer), then
# ggml's test-backend-ops on the same weight types (.peers/ggml-vulkan,
# carried), then `gen verify --backend vulkan --family mmvq`. Timing first so
# that a slow verify cannot eat the peer's time; each step has a budget
# under DEADLINE (seconds from the start, default 140).
# Needs bin/gen (CGO_ENABLED=0) and .gl/ (the Vulkan loader .debs).
# Everything lands in $OUT/r and, packed, $OUT/r.tgz.
set -u
out=${OUT:-/tmp/kgen-out}; r=$out/r; mkdir -p "$r"
pack() { tar -C "$out" -czf "$out/r.tgz" r; }
trap pack EXIT
DEADLINE=${DEADLINE:-140}
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export KGEN_TUNE_CACHE=off
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$r/gpu.txt"
log() { echo "[$(date +%T) +${SECONDS}s] $*" | tee -a "$r/log.txt"; }
# a step's seconds: its default, never past DEADLINE less 3 s to pack up
budget() { local left=$((DEADLINE - SECONDS - 3)); local b=$1; [ $left -lt $b ] && b=$left; [ $b -lt 1 ] && b=1; echo $b; }
timeout() { command timeout -k 5 "$@"; }

log "bench mmvq vulkan (ggml shape)"
timeout "$(budget ${BUDGET_BENCH:-35})" bin/gen bench --backend vulkan --family mmvq --reps "${REPS:-10}" --dtypes q4_k,q6_k,q8_0 \
  --shapes bench/mmvq-ggml.yaml --pair f32 --out "$r/mmvq-ggml-vulkan.json" > "$r/mmvq-ggml-vulkan.txt" 2>&1
log "bench exit $? ($(grep -c heuristic "$r/mmvq-ggml-vulkan.txt") lines naming heuristic)"

log "ggml quant (q4_K, q6_K, q8_0)"
P='^type_a=(q4_K|q6_K|q8_0),type_b=f32,m=4096,n=[1-58],k=14336,bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1,' \
  OUTFILE="$r/ggml-quant.txt" timeout "$(budget ${BUDGET_GGML:-55})" bash .peers/ggml-vulkan/run.sh quant > "$r/ggml-quant-table.txt" 2>&1
log "ggml exit $?"

log "verify vulkan mmvq"
timeout "$(budget ${BUDGET_VERIFY:-70})" bin/gen verify --backend vulkan --family mmvq > "$r/verify-vulkan.txt" 2>&1
echo "exit $?" >> "$r/verify-vulkan.txt"
tail -n 2 "$r/verify-vulkan.txt" | tee -a "$r/log.txt"
log "done"
