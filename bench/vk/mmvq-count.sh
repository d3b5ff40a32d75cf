#!/usr/bin/env bash
# SPIR-V instructions executed per weight by the Vulkan quantized-weight
# GEMV (mmvq, issue 11) that the heuristic picks for a device class
# (default nvidia: the H200's), at tokens 1..8, counted on the local Vulkan
# device (lavapipe; see spv-count.sh for what the two counts mean):
#
#   bash bench/vk/mmvq-count.sh [CLASS [N [K]]]
#
# The launch is `gen explain --arch CLASS`'s, so the workgroup and grid
# are that class's; kernels that size their lanes from the subgroup run
# here with lavapipe's 8 lanes, so count only the picks whose output here
# equals the plain-integer tile's (checked: "output" below compares the
# dot=khr blob's bytes with the dot=int blob's under the same launch).
. "$(dirname "$0")/count-lib.sh"
class=${1:-nvidia} n=${2:-1024} k=${3:-14336}
echo "mmvq, class $class picks, N $n x K $k, per weight"
for dt in q4_k q6_k q8_0; do
	for t in 1 2 3 4 5 6 7 8; do
		out=$("$tmp/gen" explain --arch "$class" --family mmvq --dtype "$dt" --m "$t" --n "$n" --k "$k")
		v=$(sed -n 's/^chosen: \([^ ]*\) .*/\1/p' <<< "$out")
		args=$(sed -n 's/^  vktime: -spv [^ ]* //p' <<< "$out")
		blob=$(sed -n 's/^  vktime: -spv \([^ ]*\) .*/\1/p' <<< "$out")
		[ -n "$args" ] || { echo "$dt t=$t: gen explain printed no vktime line" >&2; exit 1; }
		check=""
		if [ "${blob%_khr.spv}" != "$blob" ] && [ ! -e "${blob%_khr.spv}_int.spv" ]; then
			check=" (no dot=int blob to compare with: the layout exists with OpSDot only)"
		elif [ "${blob%_khr.spv}" != "$blob" ]; then
			"$tmp/vktime" -reps 1 -rotate-mib 0 -spv "${blob%_khr.spv}_int.spv" $args -dump 2:"$tmp/int.bin" > /dev/null
			"$tmp/vktime" -reps 1 -rotate-mib 0 -spv "$blob" $args -dump 2:"$tmp/khr.bin" > /dev/null
			check=" (khr output $(cmp -s "$tmp/int.bin" "$tmp/khr.bin" && echo "= int" || echo "DIFFERS from int"))"
		fi
		count_launch $((n * k)) 2 "$blob" "$args" "$(printf '%-5s t=%d %-26s' "$dt" "$t" "$v")"
		[ -z "$check" ] || echo "   $check"
	done
done
