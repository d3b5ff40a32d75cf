#!/usr/bin/env bash
# Builds here what bench/vk-probe-run.sh carries to the device (bench/vk,
# ignored *.spv): the empty and copy shaders, and spirv-opt -O builds of
# the quantizer blobs it times, each checked by spirv-val, and the
# experiment blobs of bench/vk/lane-reorder.py.
set -eu
cd "$(dirname "$0")/.."
for f in bench/vk/*.comp; do glslangValidator -V --target-env vulkan1.2 -o "${f%.comp}.spv" "$f" > /dev/null; done
mkdir -p bench/vk/opt
for b in generated/spirv/quant_q8_1_*_thread.spv generated/spirv/quant_q8_1_*_subgroup.spv \
         generated/spirv/quant_q8k_*_subgroup.spv generated/spirv/quant_q8k_*_workgroup.spv; do
  o=bench/vk/opt/$(basename "$b")
  spirv-opt -O "$b" -o "$o"
  spirv-val --target-env vulkan1.2 "$o"
done
# The lane tile with s after qs (bench/vk/lane-reorder.py): an experiment.
python3 bench/vk/lane-reorder.py
# and its cuts (bench/vk/lane-strip.py: bench/vk-strip-run.sh times them)
python3 bench/vk/lane-strip.py
# the 16-byte store (bench/vk/lane-store.py) and the tile before div127inv,
# as committed (bench/div127-run.sh times them against the generated one)
python3 bench/vk/lane-store.py
for dt in f16 f32; do git show 5eca768:generated/spirv/quant_q8_1_${dt}_thread.spv > bench/vk/exp/quant_q8_1_${dt}_thread_committed.spv; done
# what the exact-division code costs the tiles as generated now
# (bench/vk/exact-cost.py: bench/exact-cost-run.sh times it)
python3 bench/vk/exact-cost.py
for f in bench/vk/exp/*.comp; do glslangValidator -V --target-env vulkan1.2 -o "${f%.comp}.spv" "$f" > /dev/null; done
ls bench/vk/opt bench/vk/exp | wc -l
