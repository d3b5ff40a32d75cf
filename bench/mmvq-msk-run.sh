#!/usr/bin/env bash
# The stream-K msk128 tile beside every other Q4_K candidate, one
# device call of about 6-9 min on the merged code (bin/gen built from it):
#   1. nvcc of the sm90 mmvq source (13 parts in parallel)
#   2. registers of the msk/mmp tiles; CUDA verify of both msk128 variants
#      and mmp128 t8 (the control); memcheck of both msk128
#   3. bf16 cuBLAS (graph) and copy bandwidth on issue 11's shapes
#      (bench/mmvq-shapes.yaml), then the Q4_K suite on them, every
#      candidate graph-timed in the same call
#   4. the Q4_K suite of the ten models of bench/select-shapes.yaml at
#      3..8 tokens while DEADLINE allows
# Needs bin/gen(.xz) and .gl carried. Results in $OUT/r.tgz.
for x in bin/*.xz; do [ -e "$x" ] && xz -d -f "$x"; done; chmod +x bin/*
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-560}
begin
M=$(nvccparts generated/hip/mmvq_sm90.hip 13 /tmp/nv) || exit 1
regs tiles "_t[48]_m[ms][kp][0-9]" /tmp/nv/*.cubin | tee "$r/resources.txt"
verifyvariants "$M" msk mmvq_q4_k_r16_t4_msk128 mmvq_q4_k_r16_t8_msk128 mmvq_q4_k_r16_t8_mmp128
memcheck mmvq_q4_k_r16_t8_msk128 mmvq_q4_k_r16_t4_msk128
log "cublas"
cublas bench/mmvq-shapes.yaml
timeout "$(left)" bin/gen bench --backend cuda --family mmvq --module "$M" --reps 20 --dtypes q4_k \
  --shapes bench/mmvq-shapes.yaml --out "$r/mmvq-issue11-q4_k.json" > "$r/mmvq-issue11-q4_k.txt" 2>&1
log "issue 11 shapes exit $? ($(grep -c heuristic "$r/mmvq-issue11-q4_k.txt") cases)"
if [ "$(left)" -gt 60 ]; then
  sed 's/^tokens: .*/tokens: [3, 4, 5, 6, 7, 8]/' bench/select-shapes.yaml > /tmp/sel.yaml
  timeout "$(left)" bin/gen bench --backend cuda --family mmvq --module "$M" --reps 10 --dtypes q4_k \
    --shapes /tmp/sel.yaml --out "$r/mmvq-suite-q4_k.json" > "$r/mmvq-suite-q4_k.txt" 2>&1
  log "suite exit $? ($(grep -c heuristic "$r/mmvq-suite-q4_k.txt") cases)"
fi
log done
