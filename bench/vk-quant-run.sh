#!/usr/bin/env bash
# One device call (issue 12, Vulkan path): the quantizer blobs of bin/gen
# (a branch) against bin/gen-old (main) through NVIDIA's Vulkan driver:
# byte-for-byte gen verify of quant_q8k and quant_q8_1 with bin/gen, then
# gen bench of both families on bench/quant-shapes-12.yaml (every tile
# timed, rotated inputs) old / new / old, and the CUDA copy bandwidth the
# BENCHMARKS quantizer section divides by (bench/copy-bw.py).
# Needs bin/gen, bin/gen-old, .gl/ (carried). Results in $OUT/r (r.tgz).
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-300}
begin
vkverify 90 "$r/verify-q8k.txt" --family quant_q8k
vkverify 90 "$r/verify-q81.txt" --family quant_q8_1
quantab quant_q8k,quant_q8_1
timeout 30 python3 bench/copy-bw.py > "$r/copy.txt" 2>&1; tail -n 1 "$r/copy.txt" | tee -a "$r/log.txt"
log "done"
