#!/usr/bin/env bash
# Issue 12, 2026-12-04 (one device call): where the Vulkan quantizers' time
# goes on NVIDIA's driver. With cmd/vktime (gen bench's Vulkan timing for a
# single SPIR-V file: buffers rotated over >= 512 MiB, a barrier between
# dispatches, timestamps) it times the floor of a dispatch (bench/vk/empty),
# the path's copy roof (bench/vk/copy), and the committed quantizer blobs
# at the launch gen explain gives for 4096 x 4096 and 4096 x 14336 with
# other workgroup sizes (the specialization constant WG), printing the
# driver's statistics (registers, code size) of every pipeline; then gen
# bench on 4096 x 4096 f16 for a same-call cross-check of vktime. Every
# quantizer blob is timed twice: as committed (glslang's SPIR-V) and after
# `spirv-opt -O` (bench/vk/opt/: loops unrolled, glslang's "indexable"
# array copies gone), to see whether NVIDIA's compiler needs that done; the
# Q8_1 lane tile also with its s butterfly after the bytes
# (bench/vk/lane-reorder.py: fewer values live at once), that with no
# shared-memory staging, and with f16 decoded by unpackHalf2x16.
# Then MMVQ Q4_K/Q6_K at 3, 5, 6, 7 tokens with the new t3..t7 tiles and
# with the t8 ones (bench/vk-probe-t5.yaml, ggml-style timing).
# Last, gen bench of the Vulkan GEMV (bf16) and MMVQ (q4_k) tiles on
# bench/vk-probe-shapes.yaml, whose JSON keeps every candidate's pipeline
# statistics (read them with `go run ./cmd/benchreport -stats FILE.json`).
# DEADLINE (default 540) bounds the wall; what does not fit is listed in
# skipped.txt.
# Needs bin/gen, bin/vktime (CGO_ENABLED=0 go build), .gl/ (the Vulkan
# loader) and the SPIR-V from `bash bench/vk-probe-prep.sh` (carry bench/vk).
set -u
out=${OUT:-/tmp/kgen-out}; r=$out/r; mkdir -p "$r"
trap 'tar -C "$out" -czf "$out/r.tgz" r' EXIT
[ -d .gl ] && [ -z "${DRY:-}" ] && { for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig; }
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -z "${DRY:-}" ] && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$r/gpu.txt"
# Everything stops by DEADLINE seconds of wall (the call's limit less the
# packing): a step that would not fit is logged as skipped.
DEADLINE=${DEADLINE:-540}
fits() { [ $((DEADLINE - SECONDS)) -gt "$1" ] || { echo "skipped at ${SECONDS}s: ${*:2}" >> "$r/skipped.txt"; return 1; }; }
V() { fits 5 "$@" || return 0; echo "## vktime $*" >> "$r/vk.txt"; timeout 60 ${VKTIME:-bin/vktime} -reps 10 "$@" >> "$r/vk.txt" 2>&1 || echo "exit $?" >> "$r/vk.txt"; }
# Q BLOB ARGS: the committed blob, then its spirv-opt -O build
S=generated/spirv
Q() { local b=$1; shift; V -spv $S/$b.spv "$@"; V -spv bench/vk/opt/$b.spv "$@"; }
V -spv bench/vk/empty.spv -groups 1 -dispatches 512
V -spv bench/vk/empty.spv -groups 8192 -dispatches 64
for mib in 16 32 64 256; do n=$((mib * 65536)); V -spv bench/vk/copy.spv -push $n -buf $((mib << 20)):f32,$((mib << 20)) -groups $((n / 256)) -bytes $((2 * (mib << 20))); done
# Q8_1 lane / thread tiles (thread blob: spec 0 WG, 1 WAVES, 2 PASSES, 3 FIXED), f16 and f32, K 4096 and 14336
for dt in f16 f32; do
  eb=2; [ $dt = f32 ] && eb=4
  for k in 4096 14336; do
    nb=$((k / 32)); blocks=$((4096 * nb)); xb=$((4096 * k * eb)); yb=$((blocks * 36))
    for fixed in 1 0; do for wg in 64 128 256; do
      [ $fixed = 0 ] && [ $wg != 64 ] && continue
      Q quant_q8_1_${dt}_thread -spec 0=$wg,1=0,2=1,3=$fixed -push 4096,$k,$nb,$wg -buf $xb:$dt,$yb -groups $((blocks / wg)) -bytes $((xb + yb))
      # the lane tile with s after qs (bench/vk/lane-reorder.py)
      [ $fixed = 1 ] && V -spv bench/vk/exp/quant_q8_1_${dt}_thread.spv -spec 0=$wg,1=0,2=1,3=1 -push 4096,$k,$nb,$wg -buf $xb:$dt,$yb -groups $((blocks / wg)) -bytes $((xb + yb))
      # and with no workgroup staged through shared memory
      [ $fixed = 1 ] && V -spv bench/vk/exp/quant_q8_1_${dt}_thread_nostage.spv -spec 0=$wg,1=0,2=1,3=1 -push 4096,$k,$nb,$wg -buf $xb:$dt,$yb -groups $((blocks / wg)) -bytes $((xb + yb))
      # and with f16 decoded by unpackHalf2x16 (a bound, not exact: see lane-reorder.py)
      [ $fixed = 1 ] && [ $dt = f16 ] && V -spv bench/vk/exp/quant_q8_1_f16_thread_hwcvt.spv -spec 0=$wg,1=0,2=1,3=1 -push 4096,$k,$nb,$wg -buf $xb:$dt,$yb -groups $((blocks / wg)) -bytes $((xb + yb))
    done; done
    # multi (subgroup blob, 4 waves of 32: 128 lanes, 64 blocks a workgroup)
    Q quant_q8_1_${dt}_subgroup -spec 0=128,1=4,2=1,3=0 -push 4096,$k,$nb,64 -buf $xb:$dt,$yb -groups $((blocks / 64)) -bytes $((xb + yb))
    # Q8_K multi (8 superblocks a workgroup of 128) and wg (256 lanes, 16)
    nbk=$((k / 256)); bk=$((4096 * nbk)); ykb=$((bk * 292))
    Q quant_q8k_${dt}_subgroup -spec 0=128,1=4,2=1 -push 4096,$k,$nbk,8 -buf $xb:$dt,$ykb -groups $((bk / 8)) -bytes $((xb + ykb))
    Q quant_q8k_${dt}_workgroup -spec 0=256,1=0,2=1 -push 4096,$k,$nbk,16 -buf $xb:$dt,$ykb -groups $((bk / 16)) -bytes $((xb + ykb))
  done
done
grep -E "^## |us a dispatch|Register|register|Size|size|Local|Spill|spill" "$r/vk.txt" | head -c 20000 > "$r/vk-short.txt"
printf 'rows: [4096]\nk: [4096]\n' > /tmp/q.yaml
fits 30 gen bench quant_q8_1 && timeout 120 ${GEN:-bin/gen} bench --backend vulkan --family quant_q8_1 --dtypes f16,f32 --reps 10 --quant-shapes /tmp/q.yaml --out "$r/bench-q81.json" > "$r/bench-q81.txt" 2>&1; echo "bench exit $?" >> "$r/bench-q81.txt"
# MMVQ at 3, 5, 6, 7 tokens (ggml-style timing, as run 02vk3): the t3..t7
# tiles the heuristic now picks, then the t8 tiles that served them before.
for force in "" mmvq:tokens=8; do
  fits 40 mmvq t5 $force && KGEN_FORCE=$force timeout 90 ${GEN:-bin/gen} bench --backend vulkan --family mmvq --dtypes q4_k,q6_k --shapes bench/vk-probe-t5.yaml \
    --timing ggml --reps 5 --rounds 1 --out "$r/bench-mmvq-t5${force:+-t8}.json" > "$r/bench-mmvq-t5${force:+-t8}.txt" 2>&1
done
# The GEMV (bf16) and MMVQ (q4_k) tiles on the Vulkan path with every
# candidate's pipeline statistics (gen bench's pipeline_stats), one round.
for fam in gemv:bf16 mmvq:q4_k; do
  fits 30 gen bench $fam && timeout $((DEADLINE - SECONDS - 10)) ${GEN:-bin/gen} bench --backend vulkan --family ${fam%%:*} --dtypes ${fam#*:} --shapes bench/vk-probe-shapes.yaml \
    --reps 5 --rounds 1 --out "$r/bench-${fam%%:*}.json" > "$r/bench-${fam%%:*}.txt" 2>&1; echo "bench exit $?" >> "$r/bench-${fam%%:*}.txt"
done
