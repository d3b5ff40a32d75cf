#!/usr/bin/env bash
# One GPU-machine call: Nsight Compute sections (SpeedOfLight, Occupancy,
# LaunchStats, WarpStateStats, SchedulerStats) and SASS instruction counts of
# named kernels, each on one case, to find what limits them. Needs bin/gen.
# CASES: "kernel family dtype tokens n k" entries separated by ';'.
# Writes $OUT/ncu.txt, $OUT/sass.txt, $OUT/log.txt.
set -u
out=${OUT:-/tmp/kgen-out}; mkdir -p "$out"
log() { echo "[+${SECONDS}s] $*" | tee -a "$out/log.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee -a "$out/log.txt"
log "nvcc"
g=$(bash bench/nvcc-split.sh generated/hip/gemv_sm90.hip 12 /tmp/nv) || { log "nvcc gemv failed"; exit 1; }
mv=$(bash bench/nvcc-split.sh generated/hip/mmvq_sm90.hip 4 /tmp/nm) || { log "nvcc mmvq failed"; exit 1; }
q1=$(bash bench/nvcc-split.sh generated/hip/quant_q8_1_sm90.hip 1 /tmp/nq) || { log "nvcc q8_1 failed"; exit 1; }
log "nvcc done"
IFS=';' read -ra cases <<< "${CASES:?}"
for c in "${cases[@]}"; do
  read -r k fam dt tok n kk <<< "$c"
  printf 'tokens: [%s]\nmodels:\n  ncu:\n    case: {n: %s, k: %s}\n' "$tok" "$n" "$kk" > /tmp/ncu-shape.yaml
  mods=$g; [ "$fam" = mmvq ] && mods=$mv,$q1
  log "ncu $k ($fam $dt m=$tok n=$n k=$kk)"
  { echo "==== $k m=$tok n=$n k=$kk"
    timeout -k 5 90 ncu --clock-control none -k "$k" -c 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
      --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
      --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
      bin/gen bench --backend cuda --family "$fam" --module "$mods" --dtypes "$dt" --reps 1 --rounds 1 \
      --shapes /tmp/ncu-shape.yaml --out /tmp/ncu.json 2>&1 | grep -E '^    [A-Za-z]|==PROF==|==ERROR==|rror' | head -n 160
  } >> "$out/ncu.txt"
  f=$(grep -l "KG_KERNEL([0-9]*) $k(" /tmp/nv/*.cu /tmp/nm/*.cu | head -1 | sed 's/\.cu$/.cubin/')
  cuobjdump -sass -fun "$k" "$f" > /tmp/k.sass 2>&1
  { echo "==== $k: $(grep -cE '^\s+/\*[0-9a-f]+\*/' /tmp/k.sass) instructions"
    grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_.]+' /tmp/k.sass | awk '{print $NF}' | sed -E 's/\..*//' | sort | uniq -c | sort -rn | head -20 | paste -sd' '
  } >> "$out/sass.txt"
  mkdir -p /tmp/sass; cp /tmp/k.sass "/tmp/sass/$k.sass"
done
tar -C /tmp -czf "$out/sass.tgz" sass; log "done"
