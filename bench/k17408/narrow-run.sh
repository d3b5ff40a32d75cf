#!/usr/bin/env bash
# Next step of the K 17408 probe (not run yet: this session's device time
# ran out): which part of gen bench's candidate loop makes the xshare tiles
# time 3-4x slow on dense-27b's down (Q8_0, 2 tokens), run 06j, when they
# time on trend alone (06i). The same case six ways: only the xshare
# tiles, only the OpSDot tiles, every candidate (2 rounds, then 1), the
# xshare tiles again, then every candidate on the same shape twice in one
# process (twice.yaml: the second case reuses the first's weight copies, so
# fresh and reused copies compare); each file's xshare and fastest times
# printed.
# Needs bin/gen and .gl/ carried. Results in $OUT (p3-*.json, .txt).
set -u
. bench/device-env.sh
export KGEN_TUNE_CACHE=off
EXTRA=
run() {
  local n=$1
  shift
  env "$@" timeout -k 5 40 bin/gen bench --backend vulkan --family mmvq --dtypes q8_0 --shapes bench/k17408/one.yaml \
    --reps 10 $EXTRA --out "$out/p3-$n.json" > "$out/p3-$n.txt" 2>&1
  echo "$n exit $?"
}
run xshare KGEN_FORCE=mmvq:layout=xshare
run khr KGEN_FORCE=mmvq:dot=khr
run all X=1
EXTRA="--rounds 1" run all-r1 X=1
EXTRA=
run xshare2 KGEN_FORCE=mmvq:layout=xshare
env timeout -k 5 60 bin/gen bench --backend vulkan --family mmvq --dtypes q8_0 --shapes bench/k17408/twice.yaml \
  --reps 10 --out "$out/p3-twice.json" > "$out/p3-twice.txt" 2>&1
echo "twice exit $?"
for f in "$out"/p3-*.json; do
  python3 - "$f" << 'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
for r in d['results']:
    t = r['times']
    print(os.path.basename(sys.argv[1]), len(t), {k[10:]: round(v, 1) for k, v in sorted(t.items(), key=lambda kv: kv[1]) if 'xs' in k or v == min(t.values())})
PY
done
