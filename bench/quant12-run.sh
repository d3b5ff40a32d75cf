#!/usr/bin/env bash
# Issue 12 on the GPU machine, one call: verify the quantizers (CUDA and
# Vulkan), bench them (CUDA graph-timed, Vulkan), the empty-kernel launch
# floor, and SASS of the new and the old (../../generated, the main
# checkout's) sources.
# Needs bin/gen and the Vulkan loader (.gl); writes $OUT/r.tgz and $OUT/log.txt.
set -u
out=${OUT:-/tmp/kgen-out}; r=$out/r; mkdir -p "$r"
trap 'tar -C "$out" -czf "$out/r.tgz" r' EXIT
log() { echo "[+${SECONDS}s] $*" | tee -a "$out/log.txt"; }
t() { command timeout -k 5 "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$out/log.txt"
( bin/gen verify --backend vulkan --family quant_q8k > "$r/verify-vulkan-q8k.txt" 2>&1; echo "exit $?" >> "$r/verify-vulkan-q8k.txt"
  bin/gen verify --backend vulkan --family quant_q8_1 > "$r/verify-vulkan-q81.txt" 2>&1; echo "exit $?" >> "$r/verify-vulkan-q81.txt" ) &
vk=$!
mkdir -p /tmp/nv /tmp/old
q=$(bash bench/nvcc-split.sh generated/hip/quant_q8k_sm90.hip 1 /tmp/nv) &&
q1=$(bash bench/nvcc-split.sh generated/hip/quant_q8_1_sm90.hip 1 /tmp/nv) || { log "nvcc failed"; exit 1; }
( oq=$(bash bench/nvcc-split.sh ../../generated/hip/quant_q8k_sm90.hip 1 /tmp/old); oq1=$(bash bench/nvcc-split.sh ../../generated/hip/quant_q8_1_sm90.hip 1 /tmp/old); echo "$oq,$oq1" > /tmp/old/mods ) &
old=$!
nvcc -O3 -arch=sm_90 -o /tmp/empty bench/empty-launch.cu &
log "nvcc done"
t 30 bin/gen verify --backend cuda --arch sm90 --module "$q,$q1" > "$r/verify-cuda.txt" 2>&1; echo "exit $?" >> "$r/verify-cuda.txt"
tail -n 3 "$r/verify-cuda.txt" | tee -a "$out/log.txt"
wait $vk
log "bench cuda"
t 60 bin/gen bench --reps 10 --family quant_q8k,quant_q8_1 --backend cuda --module "$q,$q1" --dtypes f32,f16,bf16 --quant-shapes bench/quant-shapes-12.yaml --out "$r/quant-cuda.json" > "$r/quant-cuda.txt" 2>&1
log "bench cuda exit $?"
wait
/tmp/empty | tee "$r/empty.txt" | tee -a "$out/log.txt"
tail -n 2 "$r"/verify-vulkan-*.txt | tee -a "$out/log.txt"
log "bench vulkan"
t 45 bin/gen bench --reps 10 --family quant_q8k,quant_q8_1 --backend vulkan --dtypes f32,f16,bf16 --quant-shapes bench/quant-shapes-12.yaml --out "$r/quant-vulkan.json" > "$r/quant-vulkan.txt" 2>&1
log "bench vulkan exit $?"
for d in nv old; do for c in /tmp/$d/*.cubin; do cuobjdump -sass "$c"; done > "$r/sass-$d.txt" 2>&1; done
log "end"
