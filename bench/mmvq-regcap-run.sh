#!/usr/bin/env bash
# One GPU-machine call: the q4_k tensor-core tiles (mma128, mmd128, mma512)
# built with their registers capped (__launch_bounds__(wg, B) for B in CAPS,
# default "0 5 6 8"; 0 = as generated) and benched under the same names, one
# module set per cap (graph-timed, the target shapes at TOKENS, default 4, 8),
# with -Xptxas -v of each. An experiment: nothing here is in the spec.
# Needs bin/gen. Writes log.txt, ptxas.txt, bench-<cap>.json.
set -u
out=${OUT:-/tmp/kgen-out}; mkdir -p "$out"
log() { echo "[+${SECONDS}s] $*" | tee -a "$out/log.txt"; }
q1=$(bash bench/nvcc-split.sh generated/hip/quant_q8_1_sm90.hip 1 /tmp/nq) || exit 1
sed -E "s/^tokens: .*/tokens: [${TOKENS:-4, 8}]/" bench/mmvq-shapes-target.yaml > /tmp/shapes.yaml
for cap in ${CAPS:-0 5 6 8}; do
  d=/tmp/cap$cap; mkdir -p $d
  if [ "$cap" = 0 ]; then cp generated/hip/mmvq_sm90.hip $d/m.hip
  else sed -E "s/^KG_KERNEL\((128|512)\) (mmvq_q4_k_r16_t[48]_mm[ad](128|512))\(/KG_KERNEL_MIN(\1, $cap) \2(/" generated/hip/mmvq_sm90.hip > $d/m.hip; fi
  cp generated/hip/kgen_hip.h $d/
  ( awk '!started && /^KG_KERNEL/ { started = 1 } !started { print; next } /^KG_KERNEL/ { keep = ($0 ~ /_r16_t[48]_mm[ad]/) } keep { print }' $d/m.hip > $d/mm.cu
    nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -Xptxas -v -o $d/mm.cubin $d/mm.cu 2>&1 | grep -E "Compiling entry|registers|spill" | paste - - - | sed "s/^/cap $cap: /" >> "$out/ptxas.txt" ) &
  mods[$cap]=$(bash bench/nvcc-split.sh $d/m.hip 4 $d/p) || exit 1
done
wait
log "nvcc done"
for cap in ${CAPS:-0 5 6 8}; do
  timeout -k 5 60 bin/gen bench --backend cuda --family mmvq --module "${mods[$cap]},$q1" --dtypes q4_k --reps 10 --shapes /tmp/shapes.yaml --out "$out/bench-$cap.json" > /tmp/b$cap.txt 2>&1
  log "bench cap $cap exit $?"
done
