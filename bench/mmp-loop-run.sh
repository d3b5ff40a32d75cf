#!/usr/bin/env bash
# mmp128 with one walk a chunk of X (run 07v's single walk over all chunks
# spilled: 168 registers, 1.05-1.21x slower than 969e685's on one chunk),
# and branch exp/mma-fold's tensor-core f32 terms (one FADD less a (row,
# token, sub-block) at 2..8 tokens), in one device call of about 7-8 min:
#   1. nvcc of A (969e685's mmvq_sm90.hip: .exp/mmvq_sm90_main.hip), B
#      (generated now) and, when .fold/mmvq_sm90.hip is carried, C (exp/mma-fold
#      on B), 13 parts each
#   2. registers and SASS counts of the t4/t8 mmp128 and mms128 (A, B, C);
#      CUDA verify of B's mmp128 t4/t8 and C's mma/mms/mml/mmp tiles;
#      memcheck of B's mmp128 t8, t4 (verify's cases: three chunks of
#      unequal size, 1-2 tiles a workgroup)
#   3. forced A:mmp128 against B:mmp128 on issue 11's target shapes of K <=
#      4096 (A's bound), B:mmp128 and B:mms128 on all of them, C's mms128,
#      mml128 and mmp128, at 4, 5, 8 tokens, twice (graph-timed, REPS reps)
#   4. bf16 cuBLAS (graph) and copy, B's issue 11 Q4_K suite and the
#      ten-model suite at 3..8 tokens (every candidate) while DEADLINE allows
# Needs bin/gen(.xz), .gl, .exp (and .fold) carried. Results in $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-560}
begin
C=
if [ -e .fold/mmvq_sm90.hip ]; then
  mkdir -p /tmp/srcC && cp .fold/mmvq_sm90.hip generated/hip/kgen_hip.h /tmp/srcC/
  bash bench/nvcc-split.sh /tmp/srcC/mmvq_sm90.hip 13 /tmp/nvC > /tmp/nvC.txt 2>> "$r/nvcc-C.txt" &
fi
nvccab || exit 1
wait
[ -e .fold/mmvq_sm90.hip ] && C=$(cat /tmp/nvC.txt)
re="_t[48]_\(mmp128\|mms128\)"
{ regs A "$re" /tmp/nvA/*.cubin; regs B "$re" /tmp/nv/*.cubin; [ -n "$C" ] && regs C "$re" /tmp/nvC/*.cubin; } | tee "$r/resources.txt"
sassab mmvq_q4_k_r16_t8_mmp128 mmvq_q4_k_r16_t4_mmp128 mmvq_q4_k_r16_t8_mms128
[ -n "$C" ] && sass C mmvq_q4_k_r16_t8_mms128 /tmp/nvC
verifyvariants "$B" B mmvq_q4_k_r16_t4_mmp128 mmvq_q4_k_r16_t8_mmp128
[ -n "$C" ] && verifyvariants "$C" C mmvq_q4_k_r16_t2_mma128 mmvq_q4_k_r16_t8_mma128 mmvq_q4_k_r16_t2_mms128 mmvq_q4_k_r16_t4_mms128 \
  mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t8_mml128 mmvq_q4_k_r16_t4_mmp128 mmvq_q4_k_r16_t8_mmp128
memcheck mmvq_q4_k_r16_t8_mmp128 mmvq_q4_k_r16_t4_mmp128
pack  # (again after each phase: a call cut short still returns r.tgz)
tok="tokens: [${TOKENS:-4, 5, 8}]"
sed "s/^tokens: .*/$tok/" bench/mmvq-shapes-target.yaml > /tmp/s.yaml
# A's mmp128 holds K <= 32768 / tokens only: the shapes of K <= 4096
{ echo "$tok"; echo "models:"; echo "  qwen3-0.6b:"; echo "    lm_head: {n: 151936, k: 1024}"; echo "  llama-3.1-8b:"
  echo "    gate_up: {n: 14336, k: 4096}"; echo "    lm_head: {n: 128256, k: 4096}"; } > /tmp/sa.yaml
runs="B:mmp128 A:mmp128:/tmp/sa.yaml B:mms128"
[ -n "$C" ] && runs="$runs C:mms128 C:mmp128 B:mml128 C:mml128"
forcedruns loop /tmp/s.yaml $runs $(echo " $runs" | sed 's/ \([ABC]\):/ \12:/g')
q4ksuites "$B"
log done
