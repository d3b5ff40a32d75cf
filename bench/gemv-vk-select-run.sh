#!/usr/bin/env bash
# One device call for the nvidia class's gemv selection model after the
# [[unroll]] change (run 06t) and with 8-row tiles emitted:
#   1. gen bench --backend vulkan --dtypes bf16 on bench/select-shapes.yaml
#      (10 models x tokens 1..8, every candidate timed) for benchreport -fit
#      and -eval (leave one model out);
#   2. gen verify --family gemv --arch nvidia (every variant, the driver's
#      pipeline statistics to verify-stats.json);
#   3. the same on bench/gemv14-shapes.yaml for fp8e4m3_bf16 and f16, and
#      bench/cublas.py there, while DEADLINE allows.
# Needs bin/gen, .gl/ (carried). Results in $OUT/r (r.tgz).
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-580}
begin
log "bench select suite bf16"
timeout "$(left)" bin/gen bench --backend vulkan --family gemv --dtypes bf16 --shapes bench/select-shapes.yaml \
  --reps 10 --out "$r/select-vulkan.json" > "$r/select-vulkan.txt" 2>&1
log "bench select exit $?"
log "verify vulkan gemv"
vkverify $(( $(left) < ${VERIFY_CAP:-180} ? $(left) : ${VERIFY_CAP:-180} )) "$r/verify-vulkan.txt" --family gemv --arch nvidia --stats "$r/verify-stats.json"
for dt in fp8e4m3_bf16 f16; do
  [ "$(left)" -gt 60 ] || break
  log "bench $dt"
  timeout "$(left)" bin/gen bench --backend vulkan --family gemv --dtypes "$dt" --shapes bench/gemv14-shapes.yaml \
    --reps 10 --out "$r/vk-$dt.json" > "$r/vk-$dt.txt" 2>&1
  log "bench $dt exit $?"
done
[ "$(left)" -gt 30 ] && { log "cublas"; cublas bench/gemv14-shapes.yaml; }
log "done"
