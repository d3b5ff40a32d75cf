#!/usr/bin/env bash
# One device call: the Vulkan gemv's branch-free e4m3 decode (bin/gen)
# against the branchy one before (bin/gen-old, the parent commit) through
# NVIDIA's Vulkan driver:
#   1. runtime/verify's TestE4M3EveryCode (bin/verify.test: every code, NaN
#      included, bit for bit, one variant per dtype, layout, pack and split
#      count) and gen verify of eight nvidia fp8 variants (random cases);
#   2. gen bench --dtypes fp8e4m3_bf16 on bench/gemv14-shapes.yaml at tokens
#      1, 4, 8: old, new, then bf16 (new) for the byte-for-byte comparison,
#      then old again while DEADLINE allows.
# Needs bin/gen, bin/gen-old, bin/verify.test, .gl/ (carried). Results in
# $OUT/r (r.tgz).
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-300}
begin
log "TestE4M3EveryCode on NVIDIA"
timeout 60 bin/verify.test -test.run TestE4M3EveryCode -test.v > "$r/e4m3-codes.txt" 2>&1 &
p=$!
for _ in $(seq 1 60); do sleep 1; grep -qE '^(ok|PASS|FAIL)' "$r/e4m3-codes.txt" && break; kill -0 $p 2> /dev/null || break; done
sleep 1; kill -9 $p 2> /dev/null
echo "TestE4M3EveryCode: $(grep -c -- '--- PASS' "$r/e4m3-codes.txt") subtests passed, $(grep -c -- '--- FAIL' "$r/e4m3-codes.txt") failed; $(grep -E '^(PASS|FAIL)$' "$r/e4m3-codes.txt")" | tee -a "$r/log.txt"
for v in r1_t1_sg r1_t1_wg128 r2_t1_wg256 r1_t1_sk4 r2_t4_wg64 r4_t8_wg64 r1_t8_sg r2_t8_sk4; do
  vkverify 20 "$r/verify-$v.txt" --family gemv --variant "vulkan/nvidia/gemv_fp8e4m3_bf16_p8_$v"
done
sed 's/^tokens: .*/tokens: [1, 4, 8]/' bench/gemv14-shapes.yaml > /tmp/s148.yaml
bench() {
  local dt=$1 v=$2 b=bin/gen
  [ "$v" = old ] || [ "$v" = old2 ] && b=bin/gen-old
  [ "$(left)" -gt 20 ] || return
  log "bench $dt $v"
  timeout "$(left)" $b bench --backend vulkan --family gemv --dtypes "$dt" --shapes /tmp/s148.yaml \
    --reps 10 --out "$r/vk-$dt-$v.json" > "$r/vk-$dt-$v.log" 2>&1
  log "bench $dt $v exit $?"
}
bench fp8e4m3_bf16 old; bench fp8e4m3_bf16 new; bench bf16 new; bench fp8e4m3_bf16 old2
log "done"
