#!/usr/bin/env bash
# Issue 11's CUDA Q4_K figures in a short call for an H200 (about 110 s of
# wall): nvcc of the sm90 mmvq source, bf16 cuBLAS (graph) and copy on
# bench/mmvq-shapes.yaml, then the Q4_K suite (every candidate, graph-timed)
# while DEADLINE allows. On any other card it times nothing and exits (a
# call for nvidia-h200 may land on an H100: this wastes only the start).
# Needs bin/gen(.xz) and .gl carried. Results in $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-160}
begin
grep -q H200 "$r/gpu.txt" || { log "not an H200: nothing timed"; exit 0; }
log "nvcc"
mv=$(bash bench/nvcc-split.sh generated/hip/mmvq_sm90.hip 13 /tmp/nv 2> "$r/nvcc.txt") || { log "nvcc failed"; exit 1; }
log "nvcc done"
cublas bench/mmvq-shapes.yaml q4_k
q4kbench mmvq-issue11-q4_k bench/mmvq-shapes.yaml 20 "$mv"
log done
