#!/usr/bin/env bash
# The mms/mml tiles' activation staging with constant offsets (lane l copies
# token l / (32 / TOK)'s 16-byte pieces; one source pointer a lane) against
# main's loop over i / 18, i % 18 (about 120 of the ~550 instructions a
# step at 8 tokens in run h100-2026-12-07s's SASS), one device call of
# about 7 min:
#   1. nvcc of A (main's generated mmvq_sm90.hip, carried as
#      .exp/mmvq_sm90_main.hip) and B (generated now), 13 parts each
#   2. registers and SASS instruction counts of mms128 / mml128 (A, B);
#      CUDA verify of B's mms128/192/256 and mml128 at 1, 2, 4, 8 tokens;
#      memcheck of B's mms128 t8, mml128 t8, mms256 t2
#   3. forced mms128 and mml128 on the Q4_K target shapes at 3, 4, 5, 8
#      tokens, A B A B (graph-timed, REPS reps, default 10)
#   4. bf16 cuBLAS (graph) and copy on issue 11's shapes, B's Q4_K issue 11 suite (1, 2, 4, 8 tokens, every candidate), then
#      the ten-model suite at 3..8 tokens while DEADLINE allows
# Needs bin/gen(.xz), .gl and .exp carried. Results in $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-560}
begin
nvccab || exit 1
{ regs A "_t[1248]_mm[ls]128" /tmp/nvA/*.cubin; regs B "_t[1248]_mm[ls]128" /tmp/nv/*.cubin; } | tee "$r/resources.txt"
sassab mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t8_mml128 mmvq_q4_k_r16_t4_mms128
verifyvariants "$B" B $(q4ktiles mms128 mms192 mms256 mml128)
memcheck mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t8_mml128 mmvq_q4_k_r16_t2_mms256
pack  # (again after each phase: a call cut short still returns r.tgz)
sed "s/^tokens: .*/tokens: [${TOKENS:-3, 4, 5, 8}]/" bench/mmvq-shapes-target.yaml > /tmp/s.yaml
forcedruns stage /tmp/s.yaml A:mms128 B:mms128 A:mml128 B:mml128 A2:mms128 B2:mms128 A2:mml128 B2:mml128
q4ksuites "$B"
log done
