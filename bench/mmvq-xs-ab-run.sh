#!/usr/bin/env bash
# A/B of the Vulkan mmvq xshare tiles in one device call: bin/gen-a and
# bin/gen-b (two builds of cmd/gen, e.g. main and a branch) each time ggml's
# shape (4096 x 14336, n = 1..5, 8) for Q4_K, Q6_K and Q8_0 under ggml
# timing, candidates narrowed by KGEN_FORCE (default mmvq:layout=xshare),
# twice in alternated order (a b b a); then B's whole mmvq family is verified
# through NVIDIA's Vulkan driver while DEADLINE allows.
# Needs bin/gen-a, bin/gen-b and .gl/ (carried). Results in $OUT/r, packed.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-540}
begin
n=0
for side in a b b a; do
  n=$((n + 1))
  log "bench $side (pass $n)"
  KGEN_FORCE=${FORCE:-mmvq:layout=xshare} timeout 120 bin/gen-$side bench --backend vulkan --family mmvq --dtypes q4_k,q6_k,q8_0 \
    --shapes bench/mmvq-ggml.yaml --timing ggml --reps 5 --out "$r/xs-$side-$n.json" > "$r/xs-$side-$n.txt" 2>&1
  log "bench $side exit $?"
done
if [ "$(left)" -gt 60 ]; then
  log "verify vulkan mmvq (b)"
  ln -sf gen-b bin/gen
  vkverify "$(left)" "$r/verify-vulkan.txt" --family mmvq --arch nvidia
fi
log "done"
