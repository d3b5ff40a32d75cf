#!/usr/bin/env bash
# Run h100-2026-12-06p: Nsight Compute on mms128, sw32 and mma128 (llama-3.1-8b gate_up
# 14336 x 4096, Q4_K, 2 tokens; ncu locks clocks, so durations read longer than gen bench).
set -u
. bench/device-env.sh
export KGEN_TUNE_CACHE=off
mv=$(bash bench/nvcc-split.sh generated/hip/mmvq_sm90.hip 14 /tmp/nv 2>/dev/null) || { echo "nvcc failed"; exit 1; }
printf 'tokens: [2]\nmodels:\n  llama-3.1-8b:\n    gate_up: {n: 14336, k: 4096}\n' > /tmp/one.yaml
which ncu || ls /usr/local/cuda/bin | head
for tile in mms128 sw32 mma128; do
  KGEN_FORCE=mmvq:tile=$tile timeout 120 ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis --section SchedulerStats \
    -k regex:mmvq_q4_k --launch-skip 3 --launch-count 1 \
    bin/gen bench --backend cuda --family mmvq --module "$mv" --reps 2 --rounds 1 --dtypes q4_k --shapes /tmp/one.yaml --out /tmp/x.json > $OUT/ncu-$tile.txt 2>&1
  echo "$tile exit $?"
  grep -E "^  [a-zA-Z]|Duration|Throughput|Registers|Occupancy|Stall|Warp Cycles|Issued|Eligible|Active Warps|Block Limit|Waves" $OUT/ncu-$tile.txt | head -60
done
