#!/usr/bin/env bash
# The lean mms128 (mml128, branch exp/mml) as a tile beside mms128, one
# device call of about 5 min:
#   1. nvcc of exp/mml's sm90 mmvq source (.mml/mmvq_sm90.hip, kgen_hip.h;
#      make them on that branch: mkdir -p .mml && cp generated/hip/mmvq_sm90.hip
#      generated/hip/kgen_hip.h .mml/ && CGO_ENABLED=0 go build -o
#      .mml/gen-mml ./cmd/gen && xz -f .mml/gen-mml; .mml/ is git-ignored)
#   2. CUDA verify of every mml128 variant (t1, t2, t4, t8) and the
#      registers of mml128 / mms128
#   3. the Q4_K suite of the ten models of bench/select-shapes.yaml at 3..8
#      tokens (the tensor-core tiles' range), every candidate (mms128 and
#      mml128 both), graph-timed: where mml128 wins, scored on models the
#      rule was not fitted on (run 07a fitted nothing on mml128)
# Needs .mml carried (and .gl for the loader). Results in $OUT/r.tgz.
for x in .mml/*.xz; do [ -e "$x" ] && xz -d -f "$x"; done; chmod +x .mml/gen-mml
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-560}
begin
M=$(nvccparts .mml/mmvq_sm90.hip 12 /tmp/nvM) || exit 1
regs mml "_t[48]_mm[sl]128" /tmp/nvM/*.cubin | tee "$r/resources.txt"
GEN=.mml/gen-mml verifyvariants "$M" mml $(q4ktiles mml128)
sed 's/^tokens: .*/tokens: [3, 4, 5, 6, 7, 8]/' bench/select-shapes.yaml > /tmp/sel.yaml
timeout "$(left)" .mml/gen-mml bench --backend cuda --family mmvq --module "$M" --reps 10 --dtypes q4_k \
  --shapes /tmp/sel.yaml --out "$r/mmvq-mml-cuda-q4_k.json" > "$r/mmvq-mml-cuda-q4_k.txt" 2>&1
log "suite exit $? ($(grep -c heuristic "$r/mmvq-mml-cuda-q4_k.txt") cases)"
log done
