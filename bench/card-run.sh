#!/usr/bin/env bash
# One device call that does the most useful work for the card it gets (a
# call for either kind may land on an H100 or an H200; gpu.txt says which):
#   H200:  issue 11's acceptance run (bench/mmvq-issue11-run.sh, or H200_RUN=NAME: verify on
#          both backends, memcheck, cuBLAS, ggml's Vulkan, the mmvq suites)
#   other: issue 11's script with VERIFY_ONLY=1 (verification on both
#          backends, no timing: runs 07f and 07h timed these on an H100; its
#          Vulkan verify now has VKCAP=320 s so all 840 variants finish: run
#          07f's 150 s stopped at 500; VERIFY_ONLY= for the timings too);
#          CARD_RUN=NAME runs bench/NAME.sh instead (tile-ab-run: forced tiles of two generated sources, A/B; mmp-loop-run: mmp128 one walk a chunk, exp/mma-fold as C; mmvq-mml-run: mml128
#          beside every Q4_K candidate, run 07h; mmp-chunk-run: mmp128 with
#          K in chunks; exp-ab-run: tile-ab-run with B from .exp/B, a branch's gen and source)
# Needs bin/gen.xz, .gl and .peers (test-backend-ops.xz: xz -9 of
# ../shared's binary) carried.
# ggml's test-backend-ops travels xz-compressed (.peers' gzip is 17 MB, over
# the carry limit beside the tracked tree); run.sh uses this path when there
t=.peers/ggml-vulkan/test-backend-ops.xz
[ -e "$t" ] && xz -dc "$t" > /tmp/ggml-test-backend-ops && chmod +x /tmp/ggml-test-backend-ops
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
echo "card: $card"
case "$card:${CARD_RUN:-}" in
  *H200*:*) exec bash "bench/${H200_RUN:-mmvq-issue11-run}.sh" ;;
  *:?*) exec bash "bench/$CARD_RUN.sh" ;;
  *) VERIFY_ONLY=${VERIFY_ONLY-1} exec bash bench/mmvq-issue11-run.sh ;;
esac
