#!/usr/bin/env bash
# Issue 11's acceptance run (bench/mmvq-issue11-run.sh: verify on both
# backends, memcheck, cuBLAS, ggml's Vulkan, the mmvq suites) on whatever
# card the call gets (a call for either kind may land on an H100 or an
# H200; gpu.txt says which, and only an H200's run is the acceptance run).
# Needs bin/gen.xz, .gl and .peers (test-backend-ops.xz: xz -9 of
# ../shared's binary) carried.
for x in bin/*.xz; do [ -e "$x" ] && xz -d -f "$x"; done; chmod +x bin/* 2>/dev/null
# ggml's test-backend-ops travels xz-compressed (.peers' gzip is 17 MB, over
# the carry limit beside the tracked tree); run.sh uses this path when there
t=.peers/ggml-vulkan/test-backend-ops.xz
[ -e "$t" ] && xz -dc "$t" > /tmp/ggml-test-backend-ops && chmod +x /tmp/ggml-test-backend-ops
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
echo "card: $card"
exec bash bench/mmvq-issue11-run.sh
