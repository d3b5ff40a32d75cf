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
set -eu
cd "$(dirname "$0")/../.."
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/gen" ./cmd/gen
go build -o "$tmp/vktime" ./cmd/vktime
rows=64 k=4096
summary() { # the totals line and the by-class line of vktime -count, on one line
	awk '/SPIR-V instructions executed/ {t = $(NF - 2)} /by class/ {sub(/.*element: /, ""); c = $0} END {printf "%7s  (%s)", t, c}'
}
class=$("$tmp/gen" explain --device --family quant_q8_1 --dtype f32 | sed -n '1s/.* on vulkan\/\([^ ]*\) .*/\1/p')
echo "device class $class, $rows rows x K $k, per input element"
for fam in quant_q8_1 quant_q8k; do
	for v in $("$tmp/gen" list --arch "$class" --family "$fam" | awk 'NR > 1 && NF == 4 {print $3}'); do
		dt=${v#"${fam}_"}; dt=${dt%%_*}
		args=$(KGEN_FORCE=$v "$tmp/gen" explain --device --family "$fam" --dtype "$dt" --m $rows --k $k | sed -n 's/^  vktime: //p' | head -1)
		[ -n "$args" ] || { echo "$v: gen explain printed no vktime line" >&2; exit 1; }
		blob=$(sed 's/^-spv \([^ ]*\) .*/\1/' <<< "$args")
		spec=$(sed -n 's/.* -spec \([^ ]*\) .*/\1/p' <<< "$args")
		rest=$(sed 's/^-spv [^ ]* //; s/-spec [^ ]* //' <<< "$args")
		for rev in "" "$@"; do
			src=$blob
			if [ -n "$rev" ]; then
				src=$tmp/rev.spv
				git show "$rev:$blob" > "$src" 2> /dev/null || { printf '%-28s %-10s no such blob\n' "$v" "$rev"; continue; }
			fi
			spirv-opt --set-spec-const-default-value "$(tr ',=' ' :' <<< "$spec")" --freeze-spec-const -O "$src" -o "$tmp/opt.spv"
			raw=$("$tmp/vktime" -count -elements $((rows * k)) -spv "$src" -spec "$spec" $rest -dump 1:"$tmp/raw.bin" | summary)
			opt=$("$tmp/vktime" -count -elements $((rows * k)) -spv "$tmp/opt.spv" $rest -dump 1:"$tmp/opt.bin" | summary)
			same=same; cmp -s "$tmp/raw.bin" "$tmp/opt.bin" || same=DIFFERENT
			printf '%-28s %-10s as committed %s\n%-28s %-10s spirv-opt -O %s (output %s)\n' "$v" "${rev:-HEAD}" "$raw" "" "" "$opt" "$same"
		done
	done
done
