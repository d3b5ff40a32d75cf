#!/usr/bin/env bash
# One device call for the xshare tiles staging at most 4 tokens' activations
# at a time (branch exp/xs-half; run 05p's notes give the hypothesis: past
# 4 tokens their LDS passes 12 KiB and every tile slows 1.45-1.8x):
#   1. A/B under rotate timing on ggml's shape (4096 x 14336), the xshare
#      tiles only, tokens 1..8, Q4_K, Q6_K and Q8_0: bin/gen-main (main's
#      blobs), bin/gen (the branch), bin/gen-main again (the spread);
#      `go run ./cmd/benchreport -ab xs-main-1.json,xs-main-3.json -ab-b xs-half-2.json`
#   2. Vulkan `gen verify --family mmvq --arch nvidia` with the branch's bin/gen
#   3. the comparison with ggml (device-env.sh's vkggml) with the branch,
#      time allowing
# Needs bin/gen (branch), bin/gen-main (main) (either may be .xz: the carry
# limit), .gl/ and .peers/ggml-vulkan (carried). Results in $OUT/r
# ($OUT/r.tgz).
set -u
for x in bin/*.xz; do [ -e "$x" ] && xz -d -f "$x" && chmod +x "${x%.xz}"; done
. bench/device-env.sh
DEADLINE=${DEADLINE:-420}
begin

sed 's/^tokens: .*/tokens: [1, 2, 3, 4, 5, 6, 7, 8]/' bench/vk-probe-t5.yaml > /tmp/xs-tokens.yaml
n=0
for b in gen-main gen gen-main; do
  n=$((n + 1)); name=$([ "$b" = gen ] && echo half || echo main)
  log "A/B pass $n: bin/$b"
  KGEN_FORCE=mmvq:layout=xshare timeout 60 "bin/$b" bench --backend vulkan --family mmvq --dtypes q4_k,q6_k,q8_0 \
    --shapes /tmp/xs-tokens.yaml --reps 10 --out "$r/xs-$name-$n.json" > "$r/xs-$name-$n.txt" 2>&1
  log "A/B pass $n exit $?"
done
log "verify vulkan mmvq (branch)"
cap=$(left); [ "$cap" -gt 200 ] && cap=200
vkverify "$cap" "$r/verify-vulkan.txt" --family mmvq --arch nvidia
[ "$(left)" -gt 130 ] && vkggml
log "done"
