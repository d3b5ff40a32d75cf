#!/usr/bin/env bash
# Issue 11's acceptance run reordered for a short call (DEADLINE 300-450 s):
# the figures first, the slow Vulkan verification last with what is left.
#   1. nvcc of the sm90 mmvq and quant_q8_1 sources (background)
#   2. bf16 cuBLAS (graph) and copy on bench/mmvq-shapes.yaml
#   3. CUDA Q4_K suite (--pair f32: GEMV alone and quantize + GEMV)
#   4. Vulkan on ggml's shape: kgen's pair and GEMV, then ggml's mul_mat_vec
#   5. CUDA `gen verify --family mmvq`, memcheck of the t8 tensor-core tiles
#      and two tail tiles
#   6. Vulkan `gen verify --family mmvq` for the seconds left (its summary,
#      or how far it got), then the Q6_K and Q8_0 suites if any remain
# bench/mmvq-issue11-run.sh is the full run (about 585 s).
# Needs bin/gen, .gl/ and .peers/ggml-vulkan (carried). Results in $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-430}
begin

mmvqnvcc 13
log "cublas"
cublas bench/mmvq-shapes.yaml q4_k
mmvqwait || exit 1
suites bench/mmvq-shapes.yaml "$mv,$q1" q4_k
pack
[ "$(left)" -gt 150 ] && vkggml
pack
log "verify cuda mmvq"
[ "$(left)" -gt 60 ] && cudaverify "$mv"
[ "$(left)" -gt 40 ] && memcheck mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t8_mml128 mmvq_q4_k_r16_t8_mmp128 mmvq_q4_k_r4_t1_sw32 mmvq_q6_k_r2_t4_sk4
pack
if [ "$(left)" -gt 30 ]; then
  log "verify vulkan mmvq ($(left) s)"
  vkverify "$(left)" "$r/verify-vulkan.txt" --family mmvq --arch nvidia
  grep '^verify: ' "$r/verify-vulkan.txt" | tail -n 1 | tee -a "$r/log.txt"  # how far it got
fi
[ "$(left)" -gt 40 ] && suites bench/mmvq-shapes.yaml "$mv,$q1" q6_k q8_0
log done
