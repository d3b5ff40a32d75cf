#!/usr/bin/env bash
# The data an out-of-sample score of the sm90 mmvq keys needs, one device
# call per format: the mmvq suite of FMT (q4_k by default) on the 10 models
# of bench/select-shapes.yaml (every K a multiple of 256) at every token count
# 1..8, every candidate's time recorded (graph-timed), after nvcc of the
# whole sm90 mmvq source (or the cubins of an earlier call carried in
# .cubin/nv: CUBINS=.cubin/nv). `go run ./cmd/benchreport -eval -family mmvq
# -exclude-models ...` then scores the committed keys on the 6 models they
# were not fitted on (the suite's 4 are in bench/mmvq-shapes.yaml).
# Needs bin/gen (carried). Results in $OUT/r, packed into $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-585} FMT=${FMT:-q4_k}
begin
if [ -n "${CUBINS:-}" ]; then
  mv=$(ls "$CUBINS"/mmvq_sm90.*.cubin | paste -sd, -)
else
  log "nvcc"
  mv=$(bash bench/nvcc-split.sh generated/hip/mmvq_sm90.hip 14 /tmp/nv) || { log "nvcc failed"; exit 1; }
  log "nvcc done"
fi
log "bench $FMT on bench/select-shapes.yaml"
timeout "$(left)" bin/gen bench --backend cuda --family mmvq --module "$mv" --reps "${REPS:-10}" --dtypes "$FMT" \
  --shapes bench/select-shapes.yaml --out "$r/mmvq-loo-cuda-$FMT.json" > "$r/mmvq-loo-cuda-$FMT.txt" 2>&1
log "bench exit $? ($(grep -c heuristic "$r/mmvq-loo-cuda-$FMT.txt") cases)"
