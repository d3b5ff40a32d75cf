#!/usr/bin/env bash
# (Runs 2026-12-02n1/n2 ran it with MEMCHECK and NCU_KERNELS defaults that named tiles since removed: su128, st32 at 8 rows, sn128/sn32.)
# One GPU-machine call for the mmvq streaming tiles (issue 11, layout
# stream): nvcc of generated/hip/mmvq_sm90.hip in parts and of its stream
# kernels alone with -Xptxas -v (registers, spills), SASS counts, gen verify
# of the family, compute-sanitizer memcheck of stream tiles on the verify
# cases (tails), ncu counters of two tiles (into memcheck.txt), then gen bench (graph-timed) on the target shapes and the
# rest at tokens 1, 2, 4. Needs bin/gen. DEADLINE: seconds for the whole
# script (phases are cut to fit). Writes 7 files under $OUT.
set -u
out=${OUT:-/tmp/kgen-out}; mkdir -p "$out"
DEADLINE=${DEADLINE:-115}
# cap SECONDS RESERVE: at most SECONDS, leaving RESERVE before DEADLINE
cap() { local l=$((DEADLINE - SECONDS - $2)); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
log() { echo "[+${SECONDS}s] $*" | tee -a "$out/log.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee -a "$out/log.txt"
src=generated/hip/mmvq_sm90.hip
mkdir -p /tmp/ns
awk '!started && /^KG_KERNEL\(/ { started = 1 }
  !started { print; next }
  /^KG_KERNEL\(/ { keep = ($0 ~ /_r[0-9]+_t[0-9]+_s[tuwn][0-9]+\(/) }
  keep { print }' "$src" > /tmp/ns/st.cu
cp generated/hip/kgen_hip.h /tmp/ns/
log "nvcc"
( nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -Xptxas -v -o /tmp/ns/st.cubin /tmp/ns/st.cu > "$out/ptxas.txt" 2>&1; echo "rc $?" >> "$out/ptxas.txt" ) &
p1=$!
mv=$(bash bench/nvcc-split.sh "$src" 14 /tmp/nv) || { log "nvcc mmvq failed"; wait $p1; head -c 3000 "$out/ptxas.txt"; exit 1; }
q1=$(bash bench/nvcc-split.sh generated/hip/quant_q8_1_sm90.hip 1 /tmp/nq) || { log "nvcc q8_1 failed"; exit 1; }
wait $p1
log "nvcc done: $(grep -c 'registers' "$out/ptxas.txt") ptxas reports"
grep -E "Compiling entry|registers|spill" "$out/ptxas.txt" | paste - - - | sed -E 's/ptxas info *: //g; s/Compiling entry function .mmvq_q4_k_/ /; s/. for .sm_90.//; s/Function properties for mmvq_q4_k_[a-z0-9_]+//; s/Used ([0-9]+) registers.*/\1 regs/' | awk '{$1=$1; print}' | paste -sd';' | fold -w 2000
for k in mmvq_q4_k_r4_t1_st32 mmvq_q4_k_r4_t1_sw32; do
  cuobjdump -sass -fun "$k" /tmp/ns/st.cubin > "/tmp/ns/$k.sass" 2>&1
  echo "== $k: $(grep -cE '^\s+/\*[0-9a-f]+\*/' "/tmp/ns/$k.sass") instructions"; grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9_.]+' "/tmp/ns/$k.sass" | awk '{print $2}' | sed -E 's/\..*//' | sort | uniq -c | sort -rn | head -14 | paste -sd' '
done | tee "$out/sass.txt"
cat /tmp/ns/mmvq_q4_k_r4_t1_sw32.sass >> "$out/sass.txt"
log "verify"
timeout -k 5 $(cap 35 60) bin/gen verify --backend cuda --arch sm90 --family mmvq --module "$mv" > "$out/verify.txt" 2>&1; echo "exit $?" >> "$out/verify.txt"
grep -iE "fail" "$out/verify.txt" | head -n 12; tail -n 2 "$out/verify.txt"
log "memcheck"
for v in ${MEMCHECK:-mmvq_q4_k_r4_t2_sw32 mmvq_q4_k_r2_t4_st128}; do
  timeout -k 5 $(cap 20 50) compute-sanitizer --tool memcheck --print-limit 5 bin/gen verify --backend cuda --arch sm90 --module /tmp/ns/st.cubin --variant $v > "/tmp/ns/mc.txt" 2>&1
  { echo "== $v"; tail -n 3 /tmp/ns/mc.txt; } | tee -a "$out/memcheck.txt"
done
log "ncu"
for k in ${NCU_KERNELS:-mmvq_q4_k_r4_t1_st32 mmvq_q4_k_r4_t1_sw32}; do
  timeout -k 5 $(cap 25 75) ncu --clock-control none -k "$k" -c 1 --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed.sum,sm__inst_executed.avg.per_cycle_active,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__occupancy_limit_registers bin/gen bench --backend cuda --family mmvq --module "$mv,$q1" --dtypes q4_k --reps 1 --shapes bench/mmvq-shapes-ncu.yaml --out /tmp/ns/ncu.json > /tmp/ns/ncu.txt 2>&1
  { echo "== $k"; grep -E "^ +[a-z_]+__|launch__|==PROF==|rror" /tmp/ns/ncu.txt | head -n 14; } | tee -a "$out/memcheck.txt"
done
log "bench target"
timeout -k 5 $(cap 50 15) bin/gen bench --backend cuda --family mmvq --module "$mv,$q1" --dtypes q4_k --reps ${REPS:-10} --shapes bench/mmvq-shapes-target-t124.yaml --out "$out/bench-target.json" > /tmp/ns/bench-target.txt 2>&1
log "bench target exit $?"; tail -n 40 /tmp/ns/bench-target.txt >> "$out/log.txt"
log "bench rest"
timeout -k 5 $(cap 40 2) bin/gen bench --backend cuda --family mmvq --module "$mv,$q1" --dtypes q4_k --reps ${REPS:-10} --shapes bench/mmvq-shapes-rest-t124.yaml --out "$out/bench-rest.json" > /tmp/ns/bench-rest.txt 2>&1
log "bench rest exit $?"; tail -n 30 /tmp/ns/bench-rest.txt >> "$out/log.txt"
log "done"
