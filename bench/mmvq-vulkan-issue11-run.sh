#!/usr/bin/env bash
# Issue 11's Vulkan side in one device call, no nvcc (the CUDA side is
# bench/mmvq-cuda18-run.sh): `gen verify --family mmvq` through NVIDIA's
# Vulkan driver (stopped at its summary: the driver hangs the process at
# exit), the comparison with ggml's Vulkan mul_mat_vec on its shape (vkggml
# in device-env.sh), then the xshare tiles at 3..8 tokens on that shape
# under rotate timing (whether their time jumps at 5 tokens only or from 5
# on: lavapipe-2026-12-05b-mmvq-xs-count-notes.md), while DEADLINE allows.
# Needs bin/gen, .gl/ and .peers/ggml-vulkan (carried). Results in $OUT/r,
# packed into $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-560}
begin

log "verify vulkan mmvq"
vkverify 300 "$r/verify-vulkan.txt" --family mmvq --arch nvidia
vkggml
if [ "$(left)" -gt 30 ]; then
  log "xshare tiles at 3..8 tokens, rotate timing"
  sed 's/^tokens: .*/tokens: [3, 4, 5, 6, 7, 8]/' bench/vk-probe-t5.yaml > /tmp/xs-tokens.yaml
  KGEN_FORCE=mmvq:layout=xshare timeout "$(left)" bin/gen bench --backend vulkan --family mmvq --dtypes q4_k \
    --shapes /tmp/xs-tokens.yaml --reps 10 --out "$r/mmvq-xs-tokens-vulkan.json" > "$r/mmvq-xs-tokens-vulkan.txt" 2>&1
  log "xshare tokens exit $?"
fi
log "done"
