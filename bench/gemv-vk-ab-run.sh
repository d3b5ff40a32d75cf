#!/usr/bin/env bash
# One device call: an A/B of the Vulkan gemv blobs, bin/gen (a change)
# against bin/gen-old (its parent), through NVIDIA's Vulkan driver, on the
# decode suite's >= 64 MiB shapes (bench/gemv14-shapes.yaml; TOKENS, a YAML
# list, replaces its token counts):
#   1. gen verify --family gemv --arch nvidia with bin/gen (VERIFY_CAP s);
#   2. gen bench --backend vulkan (rotate timing, --reps 10) for each of
#      DTYPES: old, new, then old again while DEADLINE allows (A B A: drift
#      shows as A != A');
#   3. bench/cublas.py (bf16, graph-timed) on the same shapes, for ratios.
# OLD and NEW name other builds (default bin/gen-old, bin/gen), VERIFY_BIN
# the build verified (default NEW; VERIFY_CAP=0 skips it), NOCUBLAS=1 skips
# step 3. Needs the builds and .gl/ (carried). Results in $OUT/r (r.tgz).
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-580}
begin
shapes=bench/gemv14-shapes.yaml
if [ -n "${TOKENS:-}" ]; then
  sed "s/^tokens: .*/tokens: $TOKENS/" bench/gemv14-shapes.yaml > /tmp/ab-shapes.yaml; shapes=/tmp/ab-shapes.yaml
fi
OLD=${OLD:-bin/gen-old} NEW=${NEW:-bin/gen}
if [ "${VERIFY_CAP:-180}" -gt 0 ]; then
  log "verify vulkan gemv (${VERIFY_BIN:-$NEW})"
  VKGEN=${VERIFY_BIN:-$NEW} vkverify "${VERIFY_CAP:-180}" "$r/verify-vulkan.txt" --family gemv --arch nvidia
fi
bench() {
  local dt=$1 v=$2 b=$NEW
  [ "$v" = new ] || b=$OLD
  [ "$(left)" -gt 40 ] || return
  log "bench $dt $v"
  timeout "$(left)" $b bench --backend vulkan --family gemv --dtypes "$dt" --shapes "$shapes" \
    --reps 10 --out "$r/vk-$dt-$v.json" > "$r/vk-$dt-$v.txt" 2>&1
  log "bench $dt $v exit $?"
}
for dt in ${DTYPES:-bf16}; do bench "$dt" old; bench "$dt" new; done
if [ -z "${NOCUBLAS:-}" ] && [ "$(left)" -gt 40 ]; then
  log "cublas"
  cublas "$shapes"
fi
for dt in ${DTYPES:-bf16}; do bench "$dt" old2; done
log "done"
