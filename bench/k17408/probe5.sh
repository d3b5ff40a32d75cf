#!/usr/bin/env bash
# Run h100-2026-12-06k: the same suite on a warm shader cache, on a cleared one
# (~/.cache/nvidia removed), warm again, and twice with the disk cache off
# (__GL_SHADER_DISK_CACHE=0): slow exactly when the cache is cold.
for x in bin/*.xz; do [ -e "$x" ] && xz -d -f "$x" && chmod +x "${x%.xz}"; done
. bench/device-env.sh
export KGEN_TUNE_CACHE=off
ls -d ~/.cache/nvidia* ~/.nv 2>/dev/null; du -sh ~/.cache/nvidia 2>/dev/null
run() { n=$1; d=$2; shift 2; env "$@" timeout -k 5 100 bin/gen bench --backend vulkan --family mmvq --dtypes $d --shapes bench/k17408/all.yaml --reps 10 --out $OUT/p5-$n.json > $OUT/p5-$n.txt 2>&1; echo "$n exit $?"; }
run warm q6_k,q8_0 X=1
rm -rf ~/.cache/nvidia ~/.nv
run cold q6_k,q8_0 X=1
run warm2 q6_k,q8_0 X=1
run nocache q6_k,q8_0 __GL_SHADER_DISK_CACHE=0
run nocache2 q6_k,q8_0 __GL_SHADER_DISK_CACHE=0
python3 bench/k17408/slow.py $OUT/p5-*.json
