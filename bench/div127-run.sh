#!/usr/bin/env bash
# Issue 12, 2026-12-05: the Vulkan Q8_1 lane tile with d = amax/127 in exact
# integers (bench/vk/lane-strip.py's div127, exact: runtime/ref TestDiv127)
# and div127inv (1 / d uncertified from OpFDiv, near-tie window widened)
# against the tile committed before them (bench/vk/exp/..._committed.spv:
# git show 5eca768:generated/spirv/quant_q8_1_<dt>_thread.spv) and the
# generated one, bench/vk/lane-store.py's st16 (16-byte stores) and the
# memory-path-only cuts of both stores, f16 and f32, 4096 x 4096 and 4096 x 14336, WG 64,
# alternated two rounds so drift shows; copy of the same bytes as the
# floor. Needs bin/vktime, .gl/, bench/vk (bash bench/vk-probe-prep.sh).
set -u
. bench/device-env.sh
for round in 1 2; do
for dt in f16 f32; do eb=2; [ $dt = f32 ] && eb=4
  for k in 4096 14336; do nb=$((k / 32)); blocks=$((4096 * nb)); xb=$((4096 * k * eb)); yb=$((blocks * 36))
    for b in bench/vk/exp/quant_q8_1_${dt}_thread_committed.spv generated/spirv/quant_q8_1_${dt}_thread.spv bench/vk/exp/quant_q8_1_${dt}_thread_{div127,div127inv,st16,memonly,st16memonly}.spv; do
      echo "round $round $dt K $k $b" >> "$r/div127.txt"
      timeout 60 bin/vktime -reps 10 -spv $b -spec 0=64,1=0,2=1,3=1 -push 4096,$k,$nb,64 -buf $xb:$dt,$yb -groups $((blocks / 64)) -bytes $((xb + yb)) >> "$r/div127.txt" 2>&1
    done
    n=$(((xb + yb) / 32))
    echo "round $round $dt K $k copy" >> "$r/div127.txt"
    timeout 60 bin/vktime -reps 10 -spv bench/vk/copy.spv -push $n -buf $((16 * n)):f32,$((16 * n)) -groups $(((n + 255) / 256)) -bytes $((32 * n)) >> "$r/div127.txt" 2>&1
  done
done
done
grep -E "^round|us a dispatch" "$r/div127.txt"
