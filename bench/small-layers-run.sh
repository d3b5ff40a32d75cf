#!/usr/bin/env bash
# One device call: a fresh re-time (every sm90 mmvq candidate, graph timing) of bench/small-layers.yaml, the layers
# whose picks the 2026-12-06 sm90 rules changed, Q4_K, Q6_K and Q8_0 at tokens 1..8, so that those rules are scored
# on a measurement they were not written from (`benchreport -eval -family mmvq -loo=false` on the files). Needs
# bin/gen (carried as bin/gen.xz). Results in $OUT/r.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-300}
begin
mv=$(bash bench/nvcc-split.sh generated/hip/mmvq_sm90.hip 14 /tmp/nv 2> /dev/null) || { log "nvcc failed"; exit 1; }
log "nvcc done"
for f in q6_k q8_0 q4_k; do
  [ "$(left)" -gt 20 ] || { log "no time left for $f"; break; }
  timeout "$(left)" bin/gen bench --backend cuda --family mmvq --module "$mv" --reps 20 --dtypes $f \
    --shapes bench/small-layers.yaml --out "$r/mmvq-small-cuda-$f.json" > "$r/mmvq-small-cuda-$f.txt" 2>&1
  log "$f exit $? ($(grep -c heuristic "$r/mmvq-small-cuda-$f.txt") cases)"
done
