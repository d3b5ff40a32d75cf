#!/usr/bin/env bash
# One device call: the Vulkan gemv tiles with their constant-bound loops
# marked [[unroll]] (bin/gen) against the same tiles before (bin/gen-old,
# built from the parent commit), through NVIDIA's Vulkan driver, on the
# decode suite's >= 64 MiB shapes at tokens 1..8 (bench/gemv14-shapes.yaml):
#   1. gen verify --family gemv --arch nvidia with bin/gen;
#   2. gen bench --backend vulkan (rotate timing, --reps 10) for each DTYPES,
#      old then new;
#   3. bench/cublas.py (bf16, graph-timed) on the same shapes, for ratios;
#   4. old again while DEADLINE allows (A B A: drift shows as A != A').
# Needs bin/gen, bin/gen-old, .gl/ (carried). Results in $OUT/r (r.tgz).
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-580}
begin
log "verify vulkan gemv (new)"
vkverify 120 "$r/verify-vulkan.txt" --family gemv --arch nvidia
bench() {
  local dt=$1 v=$2 b=bin/gen
  [ "$v" = new ] || b=bin/gen-old
  [ "$(left)" -gt 40 ] || return
  log "bench $dt $v"
  timeout "$(left)" $b bench --backend vulkan --family gemv --dtypes "$dt" --shapes bench/gemv14-shapes.yaml \
    --reps 10 --out "$r/vk-$dt-$v.json" > "$r/vk-$dt-$v.txt" 2>&1
  log "bench $dt $v exit $?"
}
for dt in ${DTYPES:-bf16}; do bench "$dt" old; bench "$dt" new; done
if [ "$(left)" -gt 40 ]; then
  log "cublas"
  cublas bench/gemv14-shapes.yaml
fi
for dt in ${DTYPES:-bf16}; do bench "$dt" old2; done
log "done"
