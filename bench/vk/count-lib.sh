# Shared by bench/vk/spv-count.sh and bench/vk/mmvq-count.sh (sourced):
# builds gen and vktime into $tmp, and count_launch, which counts one
# launch's SPIR-V instructions per element as committed and after
# spirv-opt -O (see spv-count.sh's header for what the two mean).
set -eu
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/gen" ./cmd/gen
go build -o "$tmp/vktime" ./cmd/vktime

summary() { # the totals line and the by-class line of vktime -count, on one line
	awk '/SPIR-V instructions executed/ {t = $(NF - 2)} /by class/ {sub(/.*element: /, ""); c = $0} END {printf "%7s  (%s)", t, c}'
}

# count_launch ELEMENTS OUTBINDING BLOB "VKTIME ARGS without -spv" LABEL
# prints two lines: the blob as committed, and after spirv-opt -O with
# its specialization constants frozen (with whether its output binding's
# bytes stayed the same).
count_launch() {
	local elements=$1 out=$2 src=$3 args=$4 label=$5
	local spec rest raw opt same
	spec=$(sed -n 's/.*-spec \([^ ]*\).*/\1/p' <<< "$args")
	rest=$(sed 's/-spec [^ ]* *//' <<< "$args")
	if [ -n "$spec" ]; then
		spirv-opt --set-spec-const-default-value "$(tr ',=' ' :' <<< "$spec")" --freeze-spec-const -O "$src" -o "$tmp/opt.spv"
	else
		spirv-opt -O "$src" -o "$tmp/opt.spv"
	fi
	raw=$("$tmp/vktime" -count -elements "$elements" -spv "$src" $args -dump "$out:$tmp/raw.bin" | summary)
	opt=$("$tmp/vktime" -count -elements "$elements" -spv "$tmp/opt.spv" $rest -dump "$out:$tmp/opt.bin" | summary)
	same=same; cmp -s "$tmp/raw.bin" "$tmp/opt.bin" || same=DIFFERENT
	printf '%s as committed %s\n%*s spirv-opt -O %s (output %s)\n' "$label" "$raw" "${#label}" "" "$opt" "$same"
}
