#!/usr/bin/env bash
# Issue 12, 2026-12-05 (after run 05d): what the exact-division code still
# costs the Vulkan quantizers at 4096 x 4096 and 4096 x 14336, f16 and f32
# (cmd/vktime, two rounds): the Q8_1 lane tile (WG 64) as generated, without
# f32_div's inlined long-division fallback (noexact) and without the
# near-tie pass (notie); the Q8_K lane-vector tile as the heuristic's
# "multi" (WG 128, 4 subgroups, 8 superblocks a workgroup) as generated,
# noexact, with both divisions straight from OpFDiv (nodiv; none of these
# cuts is exact), l8 and l4 (8 or 4 lanes a superblock: exact; their bytes
# compared with the generated blob's here, -dump, at 64 x 4096 and 3 x 14336). Needs bin/vktime, .gl/, bench/vk
# (bash bench/vk-probe-prep.sh).
set -u
. bench/device-env.sh
for round in 1 2; do
for dt in f16 f32; do eb=2; [ $dt = f32 ] && eb=4
  for k in 4096 14336; do
    nb=$((k / 32)); blocks=$((4096 * nb)); xb=$((4096 * k * eb)); yb=$((blocks * 36))
    for b in generated/spirv/quant_q8_1_${dt}_thread.spv bench/vk/exp/quant_q8_1_${dt}_thread_cost_{noexact,notie}.spv; do
      echo "round $round $dt K $k $b" >> "$r/cost.txt"
      timeout 60 bin/vktime -reps 10 -spv $b -spec 0=64,1=0,2=1,3=1 -push 4096,$k,$nb,64 -buf $xb:$dt,$yb -groups $((blocks / 64)) -bytes $((xb + yb)) >> "$r/cost.txt" 2>&1
    done
    nk=$((k / 256)); bk=$((4096 * nk)); ykb=$((bk * 292))
    for b in generated/spirv/quant_q8k_${dt}_subgroup.spv bench/vk/exp/quant_q8k_${dt}_subgroup_cost_{noexact,nodiv,l8,l4}.spv; do
      echo "round $round $dt K $k $b" >> "$r/cost.txt"
      timeout 60 bin/vktime -reps 10 -spv $b -spec 0=128,1=4 -push 4096,$k,$nk,8 -buf $xb:$dt,$ykb -groups $((bk / 8)) -bytes $((xb + ykb)) >> "$r/cost.txt" 2>&1
    done
  done
done
done
for dt in f16 f32; do eb=2; [ $dt = f32 ] && eb=4
  for rk in 64:4096 3:14336; do rows=${rk%:*}; k=${rk#*:}; nk=$((k / 256))
    for b in generated/spirv/quant_q8k_${dt}_subgroup.spv bench/vk/exp/quant_q8k_${dt}_subgroup_cost_{l8,l4}.spv; do
      timeout 60 bin/vktime -reps 1 -spv $b -spec 0=128,1=4 -push $rows,$k,$nk,8 -buf $((rows * k * eb)):$dt,$((rows * nk * 292)) -groups $(((rows * nk + 7) / 8)) -dump 1:/tmp/$(basename $b).$rows.bin > /dev/null 2>&1
    done
    for c in l8 l4; do
      cmp /tmp/quant_q8k_${dt}_subgroup.spv.$rows.bin /tmp/quant_q8k_${dt}_subgroup_cost_$c.spv.$rows.bin && echo "$c $dt $rows x $k: identical to the generated blob" >> "$r/cost.txt"
    done
  done
done
grep -E "^round|us a dispatch|identical|differ" "$r/cost.txt"
