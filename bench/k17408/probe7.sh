#!/usr/bin/env bash
# Run h100-2026-12-06l: gen bench with every candidate's pipeline built
# before any is timed (runtime.Preparer), every process on a cold shader
# cache (__GL_SHADER_DISK_CACHE=0). Carry bin (gen of that commit) and .gl.
# The run also timed a build with a --settle wait after the builds (2 s,
# 5 s: files p7-s2, p7-s5, p7-k3s2); it was dropped since s0, no wait, was
# already on trend.
for x in bin/*.xz; do [ -e "$x" ] && xz -d -f "$x" && chmod +x "${x%.xz}"; done
. bench/device-env.sh
export KGEN_TUNE_CACHE=off __GL_SHADER_DISK_CACHE=0
run() { n=$1; shift; timeout -k 5 150 bin/gen bench --backend vulkan --family mmvq --reps 10 "$@" --out $OUT/p7-$n.json > $OUT/p7-$n.txt 2>&1; echo "$n exit $? ${SECONDS}s"; }
run s0 --dtypes q6_k,q8_0 --shapes bench/k17408/all.yaml
run k3 --dtypes q8_0 --shapes bench/k17408/k3.yaml
python3 bench/k17408/slow.py $OUT/p7-*.json
