#!/usr/bin/env bash
# Issue 12, run 2026-12-02q3 (one device call, DEADLINE seconds of wall), as
# bench/quant12k-run.sh: verify the new quantizers (CUDA and
# Vulkan), memcheck quant_q8_1_bf16_multi_sb2 (two blocks a lane pair), the
# copy bandwidth (torch, as bench/cublas.py), bench the new and the old
# quantizers in the same run (old: ../../generated, the main checkout's
# sources, timed by bin/gen-old, built from main: its launch contract), the
# empty-kernel floor, and SASS + register use of new and old cubins.
# Needs bin/gen, bin/gen-old and the Vulkan loader (.gl); writes $OUT/r.tgz
# and $OUT/log.txt.
set -u
DEADLINE=${DEADLINE:-200}
out=${OUT:-/tmp/kgen-out}; r=$out/r; mkdir -p "$r"
trap 'tar -C "$out" -czf "$out/r.tgz" r' EXIT
log() { echo "[+${SECONDS}s] $*" | tee -a "$out/log.txt"; }
t() { command timeout -k 3 "$@"; }
left() { echo $((DEADLINE - SECONDS)); }
# run a phase only when at least $1 seconds are left, for at most min($2, left - 2)
phase() { local need=$1 cap=$2; shift 2; local l=$(( $(left) - 2 )); if [ "$l" -lt "$need" ]; then log "skip (${l}s left): $*"; return 0; fi; [ "$l" -lt "$cap" ] && cap=$l; t "$cap" "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$out/log.txt"
# The Vulkan loader from .gl/ (as bench/h200-run.sh; run 2026-12-02k lacked this line, so its Vulkan phases failed).
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
( t 70 bin/gen verify --backend vulkan --family quant_q8k > "$r/verify-vulkan-q8k.txt" 2>&1; echo "exit $?" >> "$r/verify-vulkan-q8k.txt"
  t 70 bin/gen verify --backend vulkan --family quant_q8_1 > "$r/verify-vulkan-q81.txt" 2>&1; echo "exit $?" >> "$r/verify-vulkan-q81.txt" ) &
vk=$!
mkdir -p /tmp/nv /tmp/old
( oq=$(bash bench/nvcc-split.sh ../../generated/hip/quant_q8k_sm90.hip 1 /tmp/old); oq1=$(bash bench/nvcc-split.sh ../../generated/hip/quant_q8_1_sm90.hip 1 /tmp/old); echo "$oq,$oq1" > /tmp/old/mods ) &
old=$!
nvcc -O3 -arch=sm_90 -o /tmp/empty bench/empty-launch.cu &
q=$(bash bench/nvcc-split.sh generated/hip/quant_q8k_sm90.hip 1 /tmp/nv 2> "$r/nvcc-q8k.txt") &&
q1=$(bash bench/nvcc-split.sh generated/hip/quant_q8_1_sm90.hip 1 /tmp/nv 2> "$r/nvcc-q81.txt") || { log "nvcc failed"; cat "$r"/nvcc-*.txt | tail -n 30 | tee -a "$out/log.txt"; exit 1; }
log "nvcc done"
t 30 bin/gen verify --backend cuda --arch sm90 --module "$q,$q1" > "$r/verify-cuda.txt" 2>&1; echo "exit $?" >> "$r/verify-cuda.txt"
tail -n 3 "$r/verify-cuda.txt" | tee -a "$out/log.txt"
log "memcheck"
phase 10 25 compute-sanitizer --tool memcheck --print-limit 5 bin/gen verify --backend cuda --arch sm90 --module "$q1" --variant quant_q8_1_bf16_multi_sb2 > "$r/memcheck.txt" 2>&1
tail -n 2 "$r/memcheck.txt" | tee -a "$out/log.txt"
wait $vk
tail -n 2 "$r"/verify-vulkan-*.txt | tee -a "$out/log.txt"
log "copy bandwidth"
phase 10 20 python3 bench/copy-bw.py > "$r/copy.txt" 2>&1
cat "$r/copy.txt" | tail -n 1 | tee -a "$out/log.txt"
B="--reps 10 --family quant_q8k,quant_q8_1 --dtypes f32,f16,bf16 --quant-shapes bench/quant-shapes-12.yaml"
log "bench cuda new"
phase 8 25 bin/gen bench $B --backend cuda --module "$q,$q1" --out "$r/quant-cuda.json" > "$r/quant-cuda.txt" 2>&1; log "exit $?"
wait $old
log "bench cuda old"
phase 8 25 bin/gen-old bench $B --backend cuda --module "$(cat /tmp/old/mods)" --out "$r/quant-cuda-old.json" > "$r/quant-cuda-old.txt" 2>&1; log "exit $?"
log "bench vulkan new"
phase 10 30 bin/gen bench $B --backend vulkan --out "$r/quant-vulkan.json" > "$r/quant-vulkan.txt" 2>&1; log "exit $?"
log "bench vulkan old"
phase 10 30 bin/gen-old bench $B --backend vulkan --out "$r/quant-vulkan-old.json" > "$r/quant-vulkan-old.txt" 2>&1; log "exit $?"
phase 3 10 /tmp/empty > "$r/empty.txt" 2>&1; tail -n 5 "$r/empty.txt" | tee -a "$out/log.txt"
for d in nv old; do for c in /tmp/$d/*.cubin; do cuobjdump -sass "$c"; done > "$r/sass-$d.txt" 2>&1; for c in /tmp/$d/*.cubin; do cuobjdump -res-usage "$c"; done > "$r/res-$d.txt" 2>&1; done
log "end"
