#!/usr/bin/env bash
# SPIR-V instructions executed per input element by every quantizer tile
# (issue 12: instruction counts, the SPIR-V side; Nsight Compute's SASS
# counts are in the H200 runs' notes), on the local Vulkan device
# (lavapipe unless VK_DRIVER_FILES says otherwise).
#
#   bash bench/vk/spv-count.sh [REV ...]
#
# Each tile's launch is `gen explain --device`'s (KGEN_FORCE=<variant>) at
# 64 rows x K 4096; cmd/vktime -count runs it once. Every blob is counted
# as committed (glslang's output: most of its loads and stores are of
# locals the driver's compiler keeps in registers) and after
# `spirv-opt -O` with its specialization constants frozen (closer to what
# a driver runs; its output bytes are compared with the committed blob's:
# they differ for tiles whose [[unroll]] loops hold precise float math,
# because SPIRV-Tools 2023.1's loop-unroll drops NoContraction from the
# copies it makes (KhronosGroup/SPIRV-Tools#5902, fixed by #6373) and
# lavapipe then fuses them; the SPIR-V counted is the same).
# Each REV adds that commit's blob under the same launch (its launch
# contract must be this tree's). Counts depend on the subgroup size where a
# tile's lanes per block do (lavapipe: 8 lanes; NVIDIA: 32).
. "$(dirname "$0")/count-lib.sh"
rows=64 k=4096
class=$("$tmp/gen" explain --device --family quant_q8_1 --dtype f32 | sed -n '1s/.* on vulkan\/\([^ ]*\) .*/\1/p')
echo "device class $class, $rows rows x K $k, per input element"
for fam in quant_q8_1 quant_q8k; do
	for v in $("$tmp/gen" list --arch "$class" --family "$fam" | awk 'NR > 1 && NF == 4 {print $3}'); do
		dt=${v#"${fam}_"}; dt=${dt%%_*}
		args=$(KGEN_FORCE=$v "$tmp/gen" explain --device --family "$fam" --dtype "$dt" --m $rows --k $k | sed -n 's/^  vktime: //p' | head -1)
		[ -n "$args" ] || { echo "$v: gen explain printed no vktime line" >&2; exit 1; }
		blob=$(sed 's/^-spv \([^ ]*\) .*/\1/' <<< "$args")
		args=$(sed 's/^-spv [^ ]* //' <<< "$args")
		for rev in "" "$@"; do
			src=$blob
			if [ -n "$rev" ]; then
				src=$tmp/rev.spv
				git show "$rev:$blob" > "$src" 2> /dev/null || { printf '%-28s %-10s no such blob\n' "$v" "$rev"; continue; }
			fi
			count_launch $((rows * k)) 1 "$src" "$args" "$(printf '%-28s %-10s' "$v" "${rev:-HEAD}")"
		done
	done
done
