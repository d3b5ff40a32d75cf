#!/usr/bin/env bash
# The data an out-of-sample score of the mmvq keys needs, one device call
# per format: the mmvq suite of FMT (q4_k by default) on the 10 models of
# bench/select-shapes.yaml (every K a multiple of 256) at every token count
# 1..8 (TOKENS="1, 3, 5" for fewer), every candidate's time recorded.
# BACKEND=cuda (the default): graph-timed, after nvcc of the whole sm90 mmvq
# source (or the cubins of an earlier call carried in .cubin/nv:
# CUBINS=.cubin/nv). BACKEND=vulkan: the nvidia class's blobs through the
# driver, rotate timing, no nvcc (needs .gl/ carried too; a Vulkan pass over
# every candidate is slower: give TOKENS). `go run ./cmd/benchreport -eval
# -family mmvq -loo=false -exclude-models ...` then scores the committed
# keys on the 6 models they were not fitted on (the suite's 4 are in
# bench/mmvq-shapes.yaml), and `-mmvq-oos-run <run>` puts that in
# BENCHMARKS.md. Needs bin/gen (carried). Results in $OUT/r
# (mmvq-loo-BACKEND-FMT.json), packed into $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-585} FMT=${FMT:-q4_k} BACKEND=${BACKEND:-cuda}
begin
shapes=bench/select-shapes.yaml
if [ -n "${TOKENS:-}" ]; then
  sed "s/^tokens: .*/tokens: [$TOKENS]/" bench/select-shapes.yaml > /tmp/loo-shapes.yaml
  shapes=/tmp/loo-shapes.yaml
fi
mod=()
if [ "$BACKEND" = cuda ]; then
  if [ -n "${CUBINS:-}" ]; then
    mv=$(ls "$CUBINS"/mmvq_sm90.*.cubin | paste -sd, -)
  else
    log "nvcc"
    mv=$(bash bench/nvcc-split.sh generated/hip/mmvq_sm90.hip 14 /tmp/nv) || { log "nvcc failed"; exit 1; }
    log "nvcc done"
  fi
  mod=(--module "$mv")
fi
log "bench $BACKEND $FMT on $shapes"
timeout "$(left)" bin/gen bench --backend "$BACKEND" --family mmvq "${mod[@]}" --reps "${REPS:-10}" --dtypes "$FMT" \
  --shapes "$shapes" --out "$r/mmvq-loo-$BACKEND-$FMT.json" > "$r/mmvq-loo-$BACKEND-$FMT.txt" 2>&1
log "bench exit $? ($(grep -c heuristic "$r/mmvq-loo-$BACKEND-$FMT.txt") cases)"
