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
for v in old new old2; do
  b=bin/gen; [ "$v" = new ] || b=bin/gen-old
  [ "$(left)" -gt 40 ] || break
  timeout 90 $b bench --backend vulkan --family quant_q8k,quant_q8_1 --dtypes f32,f16,bf16 --quant-shapes bench/quant-shapes-12.yaml \
    --reps 10 --out "$r/quant-vk-$v.json" > "$r/quant-vk-$v.txt" 2>&1
  log "quant bench $v exit $?"
done
timeout 30 python3 bench/copy-bw.py > "$r/copy.txt" 2>&1; tail -n 1 "$r/copy.txt" | tee -a "$r/log.txt"
log "done"
