#!/usr/bin/env bash
# One device call (run h100-2026-12-06v): the Vulkan gemv's branch-free
# e4m3 decode (bin/gen) against the branchy one before (bin/gen-old, the
# parent commit) through NVIDIA's Vulkan driver:
#   0. vkquant: an experimental Q8_1 build in bin/gen against main's;
#   1. runtime/verify's TestE4M3EveryCode (bin/verify.test: every code, NaN
#      included, bit for bit, one variant per dtype, layout, pack and split
#      count) and gen verify of eight nvidia fp8 variants (random cases);
#   2. gen bench --dtypes fp8e4m3_bf16 on bench/gemv14-shapes.yaml at tokens
#      1, 4, 8: old, new, then bf16 (new) for the byte-for-byte comparison,
#      then old again while DEADLINE allows.
#   3. the bf16 comparison with ggml's Vulkan mul_mat_vec (vkdense).
# Needs bin/gen, bin/gen-old, bin/verify.test, .gl/, .peers/ggml-vulkan (carried). Results in
# $OUT/r (r.tgz).
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-540}
# The bf16 dense comparison with ggml's Vulkan mul_mat_vec (issue 14): kgen
# (bin/gen-old, main: the bf16 blobs) with --timing ggml on
# bench/vk-ggml-dense.yaml, then ggml's bf16 cases at the same shapes, both
# timed as test-backend-ops times an op.
vkdense() {
  [ "$(left)" -gt 60 ] || { log "no time for the ggml dense comparison"; return; }
  log "vulkan bf16 ggml shapes, --timing ggml"
  timeout 90 bin/gen-old bench --backend vulkan --family gemv --dtypes bf16 --shapes bench/vk-ggml-dense.yaml \
    --timing ggml --reps 5 --out "$r/vk-ggml-dense.json" > "$r/vk-ggml-dense.txt" 2>&1
  log "kgen ggml-timed exit $?"
  P='^type_a=bf16,type_b=f32,m=(14336,n=[1-58],k=4096|4096,n=[1-58],k=14336),bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1,' \
    OUTFILE="$r/ggml-dense.txt" timeout 120 bash .peers/ggml-vulkan/run.sh dense > "$r/ggml-dense-table.txt" 2>&1
  log "ggml dense exit $?"
}
# The Vulkan Q8_1 lane-vector tiles at 4 lanes a block (bin/gen) against 2
# (bin/gen-old): byte-for-byte verify on NVIDIA, then gen bench of
# quant_q8_1 on bench/quant-shapes-12.yaml, old / new / old.
vkquant() {
  vkverify 60 "$r/verify-q81.txt" --family quant_q8_1
  quantab quant_q8_1
}
begin
vkquant
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
bench fp8e4m3_bf16 old; bench fp8e4m3_bf16 new; bench bf16 new; vkdense; bench fp8e4m3_bf16 old2
log "done"
