#!/usr/bin/env bash
# mml128 (mms128 at 4 workgroups an SM, one sub-block's scales and
# activations live at a time) beside every other Q4_K candidate, one device
# call of about 5-9 min on main:
#   1. nvcc of the sm90 mmvq source (13 parts in parallel)
#   2. registers and stack of mml128 / mms128 (a spill shows as STACK > 0);
#      CUDA verify of mml128 at 1, 2, 4, 8 tokens and mms128 t8 (the
#      control); memcheck of mml128 t8 and t1
#   3. bf16 cuBLAS (graph) and copy on issue 11's shapes, a read and a
#      copy of each shape's Q4_K bytes (cublas.py's reads), then the Q4_K
#      suite on them (1, 2, 4, 8 tokens), every candidate graph-timed
#   4. the Q4_K suite of the ten models (bench/select-shapes.yaml) at 3..8
#      tokens while DEADLINE (default 560 s) allows
# Needs bin/gen(.xz) and .gl carried. Results in $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-560}
begin
M=$(nvccparts generated/hip/mmvq_sm90.hip 13 /tmp/nv) || exit 1
regs tiles "_t[1248]_mm[ls]128" /tmp/nv/*.cubin | tee "$r/resources.txt"
verifyvariants "$M" mml $(q4ktiles mml128) mmvq_q4_k_r16_t8_mms128
memcheck mmvq_q4_k_r16_t8_mml128 mmvq_q4_k_r16_t1_mml128
cublas bench/mmvq-shapes.yaml q4_k
q4kbench mmvq-issue11-q4_k bench/mmvq-shapes.yaml 20 "$M"
if [ "$(left)" -gt 60 ]; then
  sed 's/^tokens: .*/tokens: [3, 4, 5, 6, 7, 8]/' bench/select-shapes.yaml > /tmp/sel.yaml
  q4kbench mmvq-suite-q4_k /tmp/sel.yaml 10 "$M"
fi
log done
