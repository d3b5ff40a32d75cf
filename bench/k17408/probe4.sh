#!/usr/bin/env bash
# Run h100-2026-12-06k (gen of main 06d9b21; carry bin, .gl): dense-27b down, every
# candidate, Q6_K then Q8_0 five ways in one process each: default, --rotate-mib 64 and
# 2048, the dtypes reversed, 4 rounds. Only the first process (cold shader cache) was slow.
for x in bin/*.xz; do [ -e "$x" ] && xz -d -f "$x" && chmod +x "${x%.xz}"; done
. bench/device-env.sh
export KGEN_TUNE_CACHE=off
run() { n=$1; d=$2; shift 2; timeout -k 5 100 bin/gen bench --backend vulkan --family mmvq --dtypes $d --shapes bench/k17408/all.yaml --reps 10 "$@" --out $OUT/p4-$n.json > $OUT/p4-$n.txt 2>&1; echo "$n exit $?"; }
run mix q6_k,q8_0
run mix64 q6_k,q8_0 --rotate-mib 64
run mix2g q6_k,q8_0 --rotate-mib 2048
run rev q8_0,q6_k
run mix4r q6_k,q8_0 --rounds 4
python3 bench/k17408/slow.py $OUT/p4-*.json
