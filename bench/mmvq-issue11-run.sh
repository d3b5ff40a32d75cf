#!/usr/bin/env bash
# Issue 11's acceptance run on the merged mmvq code, one device call:
#   1. the sm90 mmvq and quant_q8_1 sources through nvcc (parts in parallel,
#      niced, in the background: CPU only, while the GPU does 2-4)
#   2. `gen verify --family mmvq` through NVIDIA's Vulkan driver (stopped once
#      it prints its summary: the driver hangs the process at exit; or after
#      VKCAP seconds, default 320: on an H100 the 840 variants took over 150,
#      500 done at 130 s in run h100-2026-12-07f)
#   3. Vulkan, ggml's shape (4096 x 14336, n = 1..5, 8), Q4_K, Q6_K, Q8_0:
#      kgen's pair (quant_q8_1 + GEMV) and GEMV with --timing ggml, then
#      ggml's Vulkan mul_mat_vec (.peers/ggml-vulkan) on the same types:
#      both timed as test-backend-ops times an op (kgen's candidates
#      narrowed to the integer-dot ones, KGEN_FORCE=mmvq:dot=khr, as in run 05j)
#   4. cuBLAS bf16 (graph) and copy bandwidth on bench/mmvq-shapes.yaml, and a
#      read and a copy of each shape's Q4_K bytes (cublas.py's reads)
#   5. CUDA `gen verify --family mmvq`, memcheck of MEMCHECK variants from
#      the one module holding each
#   6. CUDA mmvq suite (graph-timed, --pair f32), Q4_K, then Q6_K and Q8_0
#      while DEADLINE allows
# VERIFY_ONLY=1 runs steps 1, 2 and 5 only (verification, no timing).
# Needs bin/gen, .gl/ and .peers/ggml-vulkan (carried). Results in $OUT/r,
# packed into $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-585}
begin

mmvqnvcc 13 nice

log "verify vulkan mmvq"
vkverify "${VKCAP:-320}" "$r/verify-vulkan.txt" --family mmvq --arch nvidia

if [ -z "${VERIFY_ONLY:-}" ]; then
  vkggml
  log "cublas"
  cublas bench/mmvq-shapes.yaml q4_k
fi

mmvqwait || exit 1

log "verify cuda mmvq"
cudaverify "$mv"
memcheck ${MEMCHECK:-mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t8_mml128 mmvq_q4_k_r16_t8_mmp128 mmvq_q4_k_r16_t2_mms256 mmvq_q4_k_r16_t4_mma512 mmvq_q4_k_r4_t1_sw32 mmvq_q4_k_r4_t4_st128 mmvq_q6_k_r2_t4_sk4 mmvq_q8_0_r4_t8_wg256}

[ -z "${VERIFY_ONLY:-}" ] && suites bench/mmvq-shapes.yaml "$mv,$q1" q4_k q6_k q8_0
log "done"
