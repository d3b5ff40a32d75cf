#!/usr/bin/env bash
# Issue 11 at 8 tokens on the merged sources (mms activation copies through
# L1): bf16 cuBLAS graph-timed and the CUDA Q4_K GEMV (every candidate, tuned
# and heuristic) on the Q4_K target shapes at M = 8 in one call; verify of
# the mms variants. Needs bin/gen.xz and .gl carried.
for x in bin/*.xz; do [ -e "$x" ] && xz -d -f "$x"; done; chmod +x bin/*
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-150}
begin
log "nvcc"
A=$(bash bench/nvcc-split.sh generated/hip/mmvq_sm90.hip 8 /tmp/nv 2> "$r/nvcc.txt") || { log "nvcc failed"; exit 1; }
log "nvcc done"
verifyvariants "$A" "" mmvq_q4_k_r16_t1_mms128 mmvq_q4_k_r16_t2_mms128 mmvq_q4_k_r16_t4_mms128 mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t1_mms192 mmvq_q4_k_r16_t2_mms192 mmvq_q4_k_r16_t4_mms192 mmvq_q4_k_r16_t8_mms192 mmvq_q4_k_r16_t1_mms256 mmvq_q4_k_r16_t2_mms256 mmvq_q4_k_r16_t4_mms256 mmvq_q4_k_r16_t8_mms256
sed 's/^tokens: .*/tokens: [8]/' bench/mmvq-shapes-target.yaml > /tmp/s8.yaml
cublas /tmp/s8.yaml q4_k
timeout "$(left)" bin/gen bench --backend cuda --family mmvq --module "$A" --reps 20 --dtypes q4_k --shapes /tmp/s8.yaml --out "$r/mmvq-cuda-q4_k.json" > "$r/mmvq-cuda-q4_k.txt" 2>&1
log "mmvq cuda q4_k exit $?"
