#!/usr/bin/env bash
# Run h100-2026-12-06k: Q8_0 at 2 tokens over five shapes in one process, disk cache
# off then on: cold, only the first case (where the pipelines were built) was slow.
for x in bin/*.xz; do [ -e "$x" ] && xz -d -f "$x" && chmod +x "${x%.xz}"; done
. bench/device-env.sh
export KGEN_TUNE_CACHE=off
run() { n=$1; d=$2; shift 2; env "$@" timeout -k 5 100 bin/gen bench --backend vulkan --family mmvq --dtypes $d --shapes bench/k17408/k3.yaml --reps 10 --out $OUT/p6-$n.json > $OUT/p6-$n.txt 2>&1; echo "$n exit $?"; }
run nocache q8_0 __GL_SHADER_DISK_CACHE=0
run warm q8_0 X=1
python3 bench/k17408/slow.py $OUT/p6-*.json
