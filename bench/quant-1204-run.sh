#!/usr/bin/env bash
# Issue 12, run 2026-12-04 (one device call, DEADLINE seconds of wall): the
# quantizers with the Q8_1 lane tile on both paths. Verify every quantizer
# variant through CUDA and through NVIDIA's Vulkan driver (byte for byte),
# memcheck the CUDA lane tiles on verify's tail shapes, copy bandwidth
# (torch, as bench/cublas.py) and the empty-kernel floor, bench Q8_K and
# Q8_1 on both paths (graph-timed CUDA, Vulkan timestamps) on
# bench/quant-shapes-12.yaml, instructions executed per element of the
# multi and lane tiles at 4096 x 4096 (Nsight Compute), register use.
# Needs bin/gen (CGO_ENABLED=0 go build -o bin/gen ./cmd/gen) and .gl/ (the
# Vulkan loader .debs). Everything lands in $OUT/r, packed as $OUT/r.tgz;
# benchreport -quant-run reads its -quant-*.json, -copy.txt, -empty.txt
# (and, with bin/vktime and bench/vk carried, -vkempty.txt, -vkrow.txt,
# -vkcopy.txt).
set -u
DEADLINE=${DEADLINE:-420}
. bench/device-env.sh
trap 'tar -C "$out" -czf "$out/r.tgz" r' EXIT
log() { echo "[+${SECONDS}s] $*" | tee -a "$r/log.txt"; }
t() { command timeout -k 3 "$@"; }
left() { echo $((DEADLINE - SECONDS)); }
phase() { local need=$1 cap=$2; shift 2; local l=$(( $(left) - 5 )); if [ "$l" -lt "$need" ]; then log "skip (${l}s left): $*"; return 0; fi; [ "$l" -lt "$cap" ] && cap=$l; t "$cap" "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$r/gpu.txt"
mkdir -p /tmp/nv
nvcc -O3 -arch=sm_90 -o /tmp/empty bench/empty-launch.cu &
( t 150 bin/gen verify --backend vulkan --family quant_q8k > "$r/verify-vulkan-q8k.txt" 2>&1; echo "exit $?" >> "$r/verify-vulkan-q8k.txt"
  t 150 bin/gen verify --backend vulkan --family quant_q8_1 > "$r/verify-vulkan-q81.txt" 2>&1; echo "exit $?" >> "$r/verify-vulkan-q81.txt" ) &
vk=$!
q=$(bash bench/nvcc-split.sh generated/hip/quant_q8k_sm90.hip 1 /tmp/nv 2> "$r/nvcc-q8k.txt") &&
q1=$(bash bench/nvcc-split.sh generated/hip/quant_q8_1_sm90.hip 1 /tmp/nv 2> "$r/nvcc-q81.txt") || { log "nvcc failed"; cat "$r"/nvcc-*.txt | tail -n 30; exit 1; }
log "nvcc done"
t 60 bin/gen verify --backend cuda --arch sm90 --module "$q,$q1" > "$r/verify-cuda.txt" 2>&1; echo "exit $?" >> "$r/verify-cuda.txt"
tail -n 2 "$r/verify-cuda.txt" | tee -a "$r/log.txt"
for v in quant_q8_1_f32_lane quant_q8_1_f16_lane quant_q8_1_bf16_lane; do
  phase 10 30 compute-sanitizer --tool memcheck --print-limit 5 bin/gen verify --backend cuda --arch sm90 --module "$q1" --variant $v > "$r/memcheck-$v.txt" 2>&1
  echo "$v: $(grep -h 'ERROR SUMMARY' "$r/memcheck-$v.txt")" | tee -a "$r/log.txt"
done
wait $vk
tail -qn 2 "$r"/verify-vulkan-*.txt | tee -a "$r/log.txt"
phase 10 20 python3 bench/copy-bw.py > "$r/copy.txt" 2>&1
phase 10 40 python3 bench/copy-sizes.py > "$r/copy-same.txt" 2>&1; cat "$r/copy-same.txt" | tee -a "$r/log.txt"
tail -n 1 "$r/copy.txt" | tee -a "$r/log.txt"
phase 3 10 /tmp/empty > "$r/empty.txt" 2>&1; tail -n 4 "$r/empty.txt" | tee -a "$r/log.txt"
# The Vulkan path's own floor and copy roof (added 2026-12-05; benchreport
# -quant-run reads vkempty.txt and vkcopy.txt): cmd/vktime on the empty and
# copy shaders, dispatched as gen bench dispatches. Needs bin/vktime and the
# SPIR-V of `bash bench/vk-probe-prep.sh` (carry bench/vk).
if [ -x bin/vktime ] && [ -f bench/vk/empty.spv ] && [ -f bench/vk/copy.spv ]; then
  phase 3 20 bin/vktime -reps 10 -spv bench/vk/empty.spv -groups 1 -dispatches 512 > "$r/vkempty.txt" 2>&1
  # one row's move: K 4096 f32 (16 KiB) copied, 512 dispatches
  phase 3 20 bin/vktime -reps 10 -spv bench/vk/copy.spv -push 1024 -buf 16384:f32,16384 -groups 4 -dispatches 512 > "$r/vkrow.txt" 2>&1
  for mib in 64 256; do n=$((mib * 65536))
    phase 3 20 bin/vktime -reps 10 -spv bench/vk/copy.spv -push $n -buf $((mib << 20)):f32,$((mib << 20)) -groups $((n / 256)) -bytes $((2 * (mib << 20))) >> "$r/vkcopy.txt" 2>&1
  done
  cat "$r/vkempty.txt" "$r/vkrow.txt" "$r/vkcopy.txt" | tee -a "$r/log.txt"
fi
B="--reps 10 --family quant_q8k,quant_q8_1 --dtypes f32,f16,bf16 --quant-shapes bench/quant-shapes-12.yaml"
log "bench cuda"
phase 10 60 bin/gen bench $B --backend cuda --module "$q,$q1" --out "$r/quant-cuda.json" > "$r/quant-cuda.txt" 2>&1; log "exit $?"
log "bench vulkan"
phase 10 90 bin/gen bench $B --backend vulkan --out "$r/quant-vulkan.json" > "$r/quant-vulkan.txt" 2>&1; log "exit $?"
# Earlier sources of the same launch contract, timed in this call for a
# before/after (ignored files the caller carries): bench/.q8k-old.hip,
# bench/.q81-prev.hip
for f in bench/.q8k-old.hip bench/.q81-prev.hip; do
  [ -f "$f" ] || continue
  fam=quant_q8k; case $f in *q81*) fam=quant_q8_1;; esac
  d=/tmp/old-$fam; mkdir -p $d/src; cp "$f" $d/src/$fam-old_sm90.hip; cp generated/hip/kgen_hip.h $d/src/
  m=$(bash bench/nvcc-split.sh $d/src/$fam-old_sm90.hip 1 $d 2> "$r/nvcc-$fam-old.txt") || { log "nvcc $f failed"; continue; }
  log "bench $f"
  phase 10 40 bin/gen bench --reps 10 --family $fam --dtypes f32,f16,bf16 --quant-shapes bench/quant-shapes-12.yaml --backend cuda --module "$m" --out "$r/$fam-old-cuda.json" > "$r/$fam-old-cuda.txt" 2>&1; log "exit $?"
done
printf 'rows: [4096]\nk: [4096]\n' > /tmp/q.yaml
for dt in f32 f16 bf16; do for k in multi lane; do
  phase 15 40 ncu --clock-control none -k "regex:quant_q8_1_${dt}_${k}$" -c 1 --metrics 'smsp__inst_executed.sum,smsp__thread_inst_executed.sum,gpu__time_duration.sum' \
    bin/gen bench --backend cuda --family quant_q8_1 --module "$q1" --dtypes $dt --reps 1 --rounds 1 --quant-shapes /tmp/q.yaml --out /tmp/ncu.json >> "$r/ncu.txt" 2>&1
done; done
grep -E "^  quant_q8_1_|inst_executed|duration" "$r/ncu.txt" | tee -a "$r/log.txt"
cuobjdump -res-usage /tmp/nv/*.cubin > "$r/res.txt" 2>&1
log "end"
