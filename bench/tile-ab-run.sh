#!/usr/bin/env bash
# A/B of sm90 mmvq tiles between two generated sources, one device call
# (about 3-5 min): A = .exp/mmvq_sm90_main.hip (carried; e.g. `git show
# main:generated/hip/mmvq_sm90.hip > .exp/mmvq_sm90_main.hip`), B = this
# checkout's generated/hip/mmvq_sm90.hip (a branch's experiment).
#   1. nvcc of A and B (13 parts each); registers and SASS counts of the
#      t4/t8 variants of TILES (A, B)
#   2. CUDA verify of B's TILES at 2, 4, 8 tokens (where they exist) and
#      memcheck of B's t8 variants
#   3. forced B:tile and A:tile for each of TILES on issue 11's Q4_K target
#      shapes at TOKENS (default 4, 5, 8), twice in A B A B order
#      (graph-timed, REPS reps, default 10): `benchreport -ab` reads them
#   4. cuBLAS and B's issue 11 and ten-model suites while DEADLINE allows
# TILES: default "mms128 mml128 mmp128". Needs bin/gen(.xz) (built from B's
# checkout), .gl and .exp carried. Results in $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-560}
TILES=${TILES:-mms128 mml128 mmp128}
begin
nvccab || exit 1
re="_t[48]_\($(echo $TILES | sed 's/ /\\|/g')\)"
{ regs A "$re" /tmp/nvA/*.cubin; regs B "$re" /tmp/nv/*.cubin; } | tee "$r/resources.txt"
for t in $TILES; do sassab "mmvq_q4_k_r16_t8_$t"; done
vs= ms=
for t in $TILES; do
  for k in 2 4 8; do grep -q "mmvq_q4_k_r16_t${k}_$t\b" generated/hip/mmvq_sm90.hip && vs="$vs mmvq_q4_k_r16_t${k}_$t"; done
  ms="$ms mmvq_q4_k_r16_t8_$t"
done
verifyvariants "$B" B $vs
memcheck $ms
pack  # (again after each phase: a call cut short still returns r.tgz)
sed "s/^tokens: .*/tokens: [${TOKENS:-4, 5, 8}]/" bench/mmvq-shapes-target.yaml > /tmp/s.yaml
forcedruns ab /tmp/s.yaml $(for t in $TILES; do echo "A:$t B:$t"; done) $(for t in $TILES; do echo "A2:$t B2:$t"; done)
q4ksuites "$B"
log done
