#!/usr/bin/env bash
# nvcc-split.sh SRC.hip PARTS OUTDIR: compile a generated HIP source for
# sm_90 as PARTS cubins in parallel (nvcc is single-threaded; the GEMV file
# holds 2000+ kernels). Every part keeps the shared preamble (the header
# include and the templated bodies, everything before the first KG_KERNEL)
# and every PARTS-th kernel. Prints the cubins, comma-separated, for
# `gen verify|bench|tune --module`.
set -eu
src=$1 parts=$2 dir=$3
mkdir -p "$dir"
base=$(basename "$src" .hip)
awk -v parts="$parts" -v dir="$dir" -v base="$base" '
  !started && /^KG_KERNEL\(/ { started = 1 }
  !started { pre = pre $0 "\n"; next }
  /^KG_KERNEL\(/ { part = n++ % parts }
  { body[part] = body[part] $0 "\n" }
  END { for (p = 0; p < parts; p++) { f = dir "/" base "." p ".cu"; printf "%s", pre > f; printf "%s", body[p] > f; close(f) } }
' "$src"
cp "$(dirname "$src")/kgen_hip.h" "$dir/"
pids=()
for p in $(seq 0 $((parts - 1))); do
  nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o "$dir/$base.$p.cubin" "$dir/$base.$p.cu" &
  pids+=($!)
done
rc=0
for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
[ $rc = 0 ] || { echo "nvcc-split: a part of $src failed to compile" >&2; exit 1; }
ls "$dir/$base".*.cubin | paste -sd, -
