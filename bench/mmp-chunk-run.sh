#!/usr/bin/env bash
# (The record of run h100-2026-12-07v: mmsk2 was dropped after it, so its
# mmsk2 steps now fail; bench/mmp-loop-run.sh is the current A/B.)
# mmp128 with X decoded in chunks of tokens x K <= 32768 (so any K; before:
# K <= 32768 / tokens, 4096 at 8 tokens) against mms128 / mml128 on the
# layers it was shut out of (K 5120+ at 8 tokens, 8192+ at 4), and against
# main's mmp128 where both run (one chunk); mmsk2 (mms128 with split-K over
# 2 workgroups) beside them; and B:mms128, B:mml128 against A's (on branch
# exp/mma-fold: the tensor-core tiles' f32 terms with one FADD less a (row,
# token, sub-block) at 2..8 tokens; on main: the same code but the tiles'
# store); one device call of about 9 min:
#   1. nvcc of A (969e685's generated mmvq_sm90.hip, before all three,
#      carried as .exp/mmvq_sm90_main.hip: `git show
#      969e685:generated/hip/mmvq_sm90.hip > .exp/mmvq_sm90_main.hip`) and B
#      (generated now), 13 parts each
#   2. registers of mmp128 and mmsk2 (A, B), SASS of the t8 mms128, mml128
#      and mmp128 (A, B); CUDA verify of B's mmp128,
#      mms128 and mmsk2 at 4 and 8 tokens; memcheck of B's mmp128 t8, t4
#      (their verify cases: three chunks of unequal size, 1-2 tiles a
#      workgroup) and mmsk2 t8
#   3. forced B:mmp128, B:mms128, B:mmsk2, B:mml128, A:mms128, A:mml128 on
#      issue 11's Q4_K target shapes and A:mmp128 on those of K <= 4096, at
#      4, 5, 8 tokens, twice (graph-timed, REPS reps, default 10)
#   4. bf16 cuBLAS (graph) and copy on issue 11's shapes, B's Q4_K issue 11
#      suite (every candidate), then the ten-model suite at 3..8 tokens
#      while DEADLINE allows
# Needs bin/gen(.xz), .gl and .exp carried. Results in $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-560}
begin
nvccab || exit 1
{ regs A "_t[48]_\(mmp128\|mms128\|mmsk2\)" /tmp/nvA/*.cubin; regs B "_t[48]_\(mmp128\|mms128\|mmsk2\)" /tmp/nv/*.cubin; } | tee "$r/resources.txt"
sassab mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t8_mml128 mmvq_q4_k_r16_t8_mmp128
verifyvariants "$B" B mmvq_q4_k_r16_t4_mmp128 mmvq_q4_k_r16_t8_mmp128 mmvq_q4_k_r16_t2_mms128 mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t8_mml128 \
  mmvq_q4_k_r16_t1_mmsk2 mmvq_q4_k_r16_t4_mmsk2 mmvq_q4_k_r16_t8_mmsk2
memcheck mmvq_q4_k_r16_t8_mmp128 mmvq_q4_k_r16_t4_mmp128 mmvq_q4_k_r16_t8_mmsk2
pack  # (again after each phase: a call cut short still returns r.tgz)
tok="tokens: [${TOKENS:-4, 5, 8}]"
sed "s/^tokens: .*/$tok/" bench/mmvq-shapes-target.yaml > /tmp/s.yaml
# A's mmp128 holds K <= 32768 / tokens only: the shapes of K <= 4096
{ echo "$tok"; echo "models:"; echo "  qwen3-0.6b:"; echo "    lm_head: {n: 151936, k: 1024}"; echo "  llama-3.1-8b:"
  echo "    gate_up: {n: 14336, k: 4096}"; echo "    lm_head: {n: 128256, k: 4096}"; } > /tmp/sa.yaml
forcedruns chunk /tmp/s.yaml B:mms128 A:mms128 B:mmp128 A:mmp128:/tmp/sa.yaml B:mmsk2 B:mml128 A:mml128 \
  B2:mms128 A2:mms128 B2:mmp128 A2:mmp128:/tmp/sa.yaml B2:mmsk2 B2:mml128 A2:mml128
q4ksuites "$B"
log done
