#!/usr/bin/env bash
# mmh128 (mmp128 with its last round of tiles split stream-K) beside every
# other Q4_K candidate, one short device call (about 3 min):
#   1. nvcc of the sm90 mmvq source (13 parts in parallel)
#   2. registers; CUDA verify of both mmh128 and mmp128 t8 (the control);
#      memcheck of both mmh128
#   3. bf16 cuBLAS (graph) and copy on issue 11's shapes, then the Q4_K
#      suite on them at 4 and 8 tokens, every candidate graph-timed
#   4. the Q4_K suite of the ten models (bench/select-shapes.yaml) at 4 and
#      8 tokens while DEADLINE (default 170 s) allows
# Needs bin/gen(.xz) and .gl carried. Results in $OUT/r.tgz.
for x in bin/*.xz; do [ -e "$x" ] && xz -d -f "$x"; done; chmod +x bin/*
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-170}
begin
M=$(nvccparts generated/hip/mmvq_sm90.hip 13 /tmp/nv) || exit 1
regs tiles "_t[48]_mm[hp]128" /tmp/nv/*.cubin | tee "$r/resources.txt"
verifyvariants "$M" mmh mmvq_q4_k_r16_t4_mmh128 mmvq_q4_k_r16_t8_mmh128 mmvq_q4_k_r16_t8_mmp128
memcheck mmvq_q4_k_r16_t8_mmh128 mmvq_q4_k_r16_t4_mmh128
cublas bench/mmvq-shapes.yaml
sed 's/^tokens: .*/tokens: [4, 8]/' bench/mmvq-shapes.yaml > /tmp/i11.yaml
timeout "$(left)" bin/gen bench --backend cuda --family mmvq --module "$M" --reps 20 --dtypes q4_k \
  --shapes /tmp/i11.yaml --out "$r/mmvq-issue11-q4_k.json" > "$r/mmvq-issue11-q4_k.txt" 2>&1
log "issue 11 shapes exit $? ($(grep -c heuristic "$r/mmvq-issue11-q4_k.txt") cases)"
sed 's/^tokens: .*/tokens: [4, 8]/' bench/select-shapes.yaml > /tmp/sel.yaml
timeout "$(left)" bin/gen bench --backend cuda --family mmvq --module "$M" --reps 10 --dtypes q4_k \
  --shapes /tmp/sel.yaml --out "$r/mmvq-suite-q4_k.json" > "$r/mmvq-suite-q4_k.txt" 2>&1
log "suite exit $? ($(grep -c heuristic "$r/mmvq-suite-q4_k.txt") cases)"
log done
