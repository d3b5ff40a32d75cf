#!/usr/bin/env bash
# Issue 11's CUDA side on the merged code at every token count, one device
# call: the sm90 mmvq and quant_q8_1 sources through nvcc (parts in
# parallel) while cuBLAS bf16 (graph) and copy bandwidth run on
# bench/mmvq-shapes-m18.yaml (M = 1..8) with same-size reads of the
# quantized weights, then CUDA `gen verify --family
# mmvq`, memcheck of tail shapes, and the suite (graph-timed, --pair f32)
# for FMTS in order while DEADLINE allows. The cubins come back in
# $OUT/cubin.tgz (a later call can carry them instead of compiling again).
# Needs bin/gen (carried). Results in $OUT/r, packed into $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-580} FMTS=${FMTS:-q4_k q6_k q8_0} SHAPES=${SHAPES:-bench/mmvq-shapes-m18.yaml}
begin

mmvqnvcc 14
log "cublas"
cublas "$SHAPES" q4_k,q6_k,q8_0
mmvqwait || exit 1
tar -C /tmp -czf "$out/cubin.tgz" nv

log "verify cuda mmvq"
cudaverify "$mv"
memcheck ${MEMCHECK:-mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t8_mma128 mmvq_q6_k_r16_t8_mma128 mmvq_q6_k_r16_t4_mma512 mmvq_q4_k_r4_t1_sw32 mmvq_q8_0_r4_t8_wg256}

suites "$SHAPES" "$mv,$q1" $FMTS
log "done"
