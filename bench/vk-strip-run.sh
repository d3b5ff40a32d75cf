#!/usr/bin/env bash
# Issue 12, 2026-12-05 (one device call): where the Vulkan Q8_1 lane tile's
# time goes. Times, with cmd/vktime at 4096 x 4096 and 4096 x 14336 (f16,
# f32, WG 64), the committed tile and bench/vk/lane-strip.py's cuts of it
# (memonly: its loads, staging and stores only; nodiv: uncertified d and
# 1/d; notie: no near-tie pass; div127: d in exact integers, exact, added
# after run 05c and not yet timed), then runs bench/quant-1204-run.sh (the
# quantizer run with the Vulkan path's own floors) in the same call.
# Needs bin/gen, bin/vktime, .gl/, bench/vk (bash bench/vk-probe-prep.sh and
# python3 bench/vk/lane-strip.py with its blobs compiled).
set -u
. bench/device-env.sh
for dt in f16 f32; do eb=2; [ $dt = f32 ] && eb=4
  for k in 4096 14336; do nb=$((k / 32)); blocks=$((4096 * nb)); xb=$((4096 * k * eb)); yb=$((blocks * 36))
    for b in generated/spirv/quant_q8_1_${dt}_thread.spv bench/vk/exp/quant_q8_1_${dt}_thread_{memonly,nodiv,notie,div127}.spv; do
      timeout 60 bin/vktime -reps 10 -spv $b -spec 0=64,1=0,2=1,3=1 -push 4096,$k,$nb,64 -buf $xb:$dt,$yb -groups $((blocks / 64)) -bytes $((xb + yb)) >> "$r/strip.txt" 2>&1
    done
  done
  # as many bytes through the copy shader (half read, half written; n 16-byte words each way)
  for k in 4096 14336; do n=$(((4096 * k * eb + 4096 * k / 32 * 36) / 32))
    timeout 60 bin/vktime -reps 10 -spv bench/vk/copy.spv -push $n -buf $((16 * n)):f32,$((16 * n)) -groups $(((n + 255) / 256)) -bytes $((32 * n)) >> "$r/strip.txt" 2>&1
  done
done
# Q8_K f32 subgroup tile (a subgroup a superblock) at 4096 x 4096 with other
# workgroup sizes and superblocks a workgroup: is its time the launch shape?
bk=65536; ykb=$((bk * 292))
for wb in 32:1 32:4 64:2 128:4 128:8 128:16 256:8 256:32; do wg=${wb%:*}; bpw=${wb#*:}
  timeout 60 bin/vktime -reps 10 -spv generated/spirv/quant_q8k_f32_subgroup.spv -spec 0=$wg,1=$((wg / 32)),2=1 -push 4096,4096,16,$bpw -buf 67108864:f32,$ykb -groups $((bk / bpw)) -bytes $((67108864 + ykb)) >> "$r/strip.txt" 2>&1
done
grep -E "us a dispatch|Register" "$r/strip.txt"
DEADLINE=${DEADLINE:-420} bash bench/quant-1204-run.sh
