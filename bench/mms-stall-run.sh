#!/usr/bin/env bash
# Where the Q4_K tensor-core tiles' cycles go at 8 tokens (issue 11's M = 8
# gap: 52-62% of copy on the non-LM-head layers where M = 1 runs at 77-83%),
# one device call of about 3 min on main:
#   1. nvcc of the sm90 mmvq source (13 parts in parallel)
#   2. SASS of mms128 t8, mml128 t8 and sw32 r4 t1 (cuobjdump), to count
#      instructions per superblock step offline
#   3. Nsight Compute (clocks locked by ncu: durations read longer than gen
#      bench's) on those three at qwen3-32b q_proj (8192 x 5120) and
#      llama-3.1-8b gate_up (14336 x 4096): the sections of run 06p plus
#      every stall reason per issued instruction (raw metrics, csv) and the
#      instruction mix, so the 3.8 of 6.0 cycles a warp between issues
#      that 06p's summary left unnamed get names
# Needs bin/gen(.xz) and .gl carried. Results in $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-500}
begin
M=$(nvccparts generated/hip/mmvq_sm90.hip 13 /tmp/nv) || exit 1
tiles="mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t8_mml128 mmvq_q4_k_r4_t1_sw32"
for v in $tiles; do sass "" "$v"; done
regs tiles "_t[18]_mm[ls]128\|_r4_t1_sw32" /tmp/nv/*.cubin | tee "$r/resources.txt"
shape() { printf 'tokens: [%s]\nmodels:\n  m:\n    %s: {n: %s, k: %s}\n' "$1" "$2" "$3" "$4" > /tmp/one.yaml; }
sections="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis --section SchedulerStats --section InstructionStats --section SourceCounters"
for s in "q_proj 8192 5120" "gate_up 14336 4096"; do
  set -- $s
  for v in $tiles; do
    [ "$(left)" -gt 40 ] || { log "out of time"; break 2; }
    case $v in *_t1_*) shape 1 "$1" "$2" "$3" ;; *) shape 8 "$1" "$2" "$3" ;; esac
    f="$r/ncu-$1-$v"
    KGEN_FORCE=$v timeout 90 ncu $sections -k "regex:$v" --launch-skip 3 --launch-count 1 \
      bin/gen bench --backend cuda --family mmvq --module "$M" --reps 2 --rounds 1 --dtypes q4_k --shapes /tmp/one.yaml --out /tmp/x.json > "$f.txt" 2>&1
    KGEN_FORCE=$v timeout 90 ncu --metrics "regex:smsp__average_warps?_(latency_)?issue_stalled_.*|smsp__inst_executed\.sum|smsp__inst_executed_pipe_.*\.sum|sm__cycles_elapsed\.avg|smsp__warps_active\.avg\.per_cycle_active" \
      --csv --page raw -k "regex:$v" --launch-skip 3 --launch-count 1 \
      bin/gen bench --backend cuda --family mmvq --module "$M" --reps 2 --rounds 1 --dtypes q4_k --shapes /tmp/one.yaml --out /tmp/x.json > "$f.csv" 2>&1
    log "ncu $1 $v: $(grep -m1 -o 'Duration *us *[0-9.]*' "$f.txt")"
  done
done
log done
