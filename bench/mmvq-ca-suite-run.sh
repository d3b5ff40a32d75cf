#!/usr/bin/env bash
# Issue 11 (every token count) and the sm90 mmvq keys' refit after the mms
# tiles' activation copies went through L1 (cp.async.ca), one call: verify
# and memcheck of the mms variants, bf16 cuBLAS graph-timed with same-size
# reads of the Q4_K bytes, and the CUDA Q4_K suite (every candidate, pair
# too) on the ten models of bench/select-shapes.yaml at tokens 1..8, so the
# keys can be refitted and scored leaving one model out on the same file.
# Needs bin/gen.xz and .gl carried. Results in $OUT/r.tgz.
for x in bin/*.xz; do [ -e "$x" ] && xz -d -f "$x"; done; chmod +x bin/*
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-560}
begin
log "nvcc"
A=$(bash bench/nvcc-split.sh generated/hip/mmvq_sm90.hip 8 /tmp/nv 2> "$r/nvcc.txt") || { log "nvcc failed"; exit 1; }
log "nvcc done"
verifyvariants "$A" "" mmvq_q4_k_r16_t1_mms128 mmvq_q4_k_r16_t2_mms128 mmvq_q4_k_r16_t4_mms128 mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t1_mms192 mmvq_q4_k_r16_t2_mms192 mmvq_q4_k_r16_t4_mms192 mmvq_q4_k_r16_t8_mms192 mmvq_q4_k_r16_t1_mms256 mmvq_q4_k_r16_t2_mms256 mmvq_q4_k_r16_t4_mms256 mmvq_q4_k_r16_t8_mms256
memcheck mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t4_mms192
PYTHONUNBUFFERED=1 timeout 150 python3 bench/cublas.py bench/select-shapes.yaml "$r/cublas.json" bf16 q4_k > "$r/cublas.txt" 2>&1
log "cublas exit $?: $(tail -n 1 "$r/cublas.txt")"
REPS=10 suites bench/select-shapes.yaml "$A" q4_k
log done
