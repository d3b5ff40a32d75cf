#!/usr/bin/env bash
# One GPU-machine call for issue 14's CUDA gemv tiles (run 02g1: the 8-row
# tensor-core mmn tiles and mml, mma with weights past L1; run 02g2: mmp, mma
# with the L2::256B prefetch hint on the weights; TILES names them), beside
# the 16-row mma ones, inside DEADLINE seconds:
#   1. nvcc of the bf16 and fp8e4m3_bf16 kernels of generated/hip/gemv_sm90.hip
#      (the dtypes benched; 16 parts, -Xptxas -v: registers and spills of every
#      tensor-core kernel) and of the new tiles' kernels alone (all four dtypes);
#   2. SASS instruction counts of four t8 tensor-core kernels;
#   3. gen verify --backend cuda of each new-tile variant (all dtypes),
#      and compute-sanitizer memcheck of two on the family's tail shapes;
#   4. bench/cublas.py (bf16, eager and graph-timed) on the shapes below;
#   5. gen bench (graph-timed, --reps 10) of bf16 and fp8e4m3_bf16 on
#      bench/gemv14-shapes.yaml (the decode suite's >= 64 MiB shapes, tokens
#      1..8), and of fp8e4m3_bf16 at one token through bin/gen-x, whose only
#      difference is a first prefer key making a pack-16 (tensor-core) tile
#      the heuristic pick there, so the tensor-core tiles get timed (gen bench sweeps the
#      heuristic's pack and tokens only); bf16 last (its JSON is written case
#      by case, so a cut run keeps what it timed).
# Needs bin/gen and bin/gen-x. Everything lands in $OUT/r, packed as $OUT/r.tgz.
set -u
out=${OUT:-/tmp/kgen-out}; r=$out/r; mkdir -p "$r"
pack() { tar -C "$out" -czf "$out/r.tgz" r; }
trap pack EXIT
log() { echo "[$(date +%T) +${SECONDS}s] $*" | tee -a "$r/log.txt"; }
budget() { local left=$(( ${DEADLINE:-600} - SECONDS - 5 )); [ "$left" -lt "$1" ] && echo $(( left < 1 ? 1 : left )) || echo "$1"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$r/gpu.txt"
src=generated/hip/gemv_sm90.hip
d=/tmp/g14; mkdir -p "$d"; cp generated/hip/kgen_hip.h "$d/"
log "nvcc"
# parts of the benched dtypes, and the new tiles' kernels alone
awk -v parts=16 -v dir="$d" -v tiles="${TILES:-mmp}" '
  !started && /^KG_KERNEL\(/ { started = 1 }
  !started { pre = pre $0 "\n"; next }
  /^KG_KERNEL\(/ { keep = ($0 ~ / gemv_(bf16|fp8e4m3_bf16)_p/); mmn = ($0 ~ "_(" tiles ")[0-9]+\\("); if (keep) part = n++ % parts }
  keep { body[part] = body[part] $0 "\n" }
  mmn { mbody = mbody $0 "\n" }
  END { for (p = 0; p < parts; p++) { f = dir "/gemv." p ".cu"; printf "%s", pre > f; printf "%s", body[p] > f; close(f) }
        f = dir "/mmn.cu"; printf "%s", pre > f; printf "%s", mbody > f; close(f) }' "$src"
pids=()
for p in $(seq 0 15); do
  nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -Xptxas -v -o "$d/gemv.$p.cubin" "$d/gemv.$p.cu" > "$d/ptxas.$p.txt" 2>&1 &
  pids+=($!)
done
nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin -o "$d/mmn.cubin" "$d/mmn.cu" > "$d/ptxas.mmn.txt" 2>&1 &
pids+=($!)
rc=0; for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
cat "$d"/ptxas.*.txt > "$r/ptxas-all.txt"
[ $rc = 0 ] || { log "nvcc failed"; grep -m 20 -i error "$r/ptxas-all.txt"; exit 1; }
mods=$(ls "$d"/gemv.*.cubin | paste -sd, -)
log "nvcc done"
# registers / spills of the tensor-core kernels: name regs spill-stores spill-loads
awk '/Compiling entry function/ { match($0, /gemv_[a-z0-9_]+/); k = substr($0, RSTART, RLENGTH) }
  /spill stores/ { split($0, a, /[ ,]+/); for (i in a) { if (a[i] == "stores") st = a[i-3]; if (a[i] == "loads") ld = a[i-3] } }
  /Used [0-9]+ registers/ { match($0, /Used [0-9]+/); reg = substr($0, RSTART + 5, RLENGTH - 5); if (k ~ /_mm/) print k, reg, st, ld }' \
  "$r/ptxas-all.txt" | sort > "$r/ptxas-mma.txt"
log "ptxas: $(wc -l < "$r/ptxas-mma.txt") tensor-core kernels"; grep "_t8_" "$r/ptxas-mma.txt"
for k in ${SASS:-gemv_bf16_p8_r16_t8_mma256 gemv_bf16_p8_r16_t8_mmp256 gemv_fp8e4m3_bf16_p16_r16_t8_mma128 gemv_fp8e4m3_bf16_p16_r16_t8_mmp128}; do
  f=$(grep -l "KG_KERNEL([0-9]*) $k(" "$d"/gemv.*.cu | sed 's/\.cu$/.cubin/')
  cuobjdump -sass -fun "$k" "$f" > "$d/$k.sass" 2>&1
  echo "== $k: $(grep -cE '^\s+/\*[0-9a-f]+\*/' "$d/$k.sass") instructions: $(grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_.]+' "$d/$k.sass" | awk '{print $NF}' | sed -E 's/\..*//' | sort | uniq -c | sort -rn | head -16 | awk '{printf "%s %s, ", $2, $1}')"
done | tee "$r/sass-summary.txt"
log "verify new tiles"
grep -oE 'KG_KERNEL\([0-9]+\) gemv_[a-z0-9_]+' "$d/mmn.cu" | awk '{print $2}' > "$d/mmn.txt"
timeout -k 5 "$(budget 60)" xargs -P 6 -I{} sh -c 'bin/gen verify --backend cuda --arch sm90 --module '"$d"'/mmn.cubin --variant {} > '"$d"'/verify.{}.txt 2>&1; echo "{} exit $?" >> '"$d"'/verify.{}.txt' < "$d/mmn.txt"
cat "$d"/verify.gemv_*.txt > "$r/verify-mmn.txt"
echo "new-tile variants: $(wc -l < "$d/mmn.txt"), passed: $(grep -c ': 1 passed, 0 failed' "$r/verify-mmn.txt"), exit 0: $(grep -c ' exit 0$' "$r/verify-mmn.txt")" | tee -a "$r/log.txt"
log "memcheck"
for v in ${MEMCHECK:-gemv_fp8e4m3_bf16_p16_r16_t8_mmp128 gemv_bf16_p8_r16_t4_mmp256}; do
  echo "== $v" >> "$r/memcheck.txt"
  timeout -k 5 "$(budget 40)" compute-sanitizer --tool memcheck --print-limit 5 bin/gen verify --backend cuda --arch sm90 --module "$d/mmn.cubin" --variant $v >> "$r/memcheck.txt" 2>&1
done
grep -E "^==|ERROR SUMMARY|passed" "$r/memcheck.txt"
log "cublas"
PYTHONUNBUFFERED=1 timeout -k 5 "$(budget 45)" python3 bench/cublas.py bench/gemv14-shapes.yaml "$r/cublas.json" bf16 > "$r/cublas.txt" 2>&1
log "cublas exit $?"; tail -n 1 "$r/cublas.txt"
log "bench fp8 m=1 tensor-core sweep (gen-x)"
timeout -k 5 "$(budget 20)" bin/gen-x bench --backend cuda --module "$mods" --dtypes fp8e4m3_bf16 --reps 10 --shapes bench/gemv14-shapes-m1.yaml --out "$r/cuda-fp8-m1x.json" > "$r/cuda-fp8-m1x.txt" 2>&1
log "bench fp8 m=1 exit $?"
log "bench fp8"
timeout -k 5 "$(budget 50)" bin/gen bench --backend cuda --module "$mods" --dtypes fp8e4m3_bf16 --reps 10 --shapes bench/gemv14-shapes.yaml --out "$r/cuda-fp8.json" > "$r/cuda-fp8.txt" 2>&1
log "bench fp8 exit $?"
log "bench bf16"
timeout -k 5 "$(budget 110)" bin/gen bench --backend cuda --module "$mods" --dtypes bf16 --reps 10 --shapes bench/gemv14-shapes.yaml --out "$r/cuda.json" > "$r/cuda.txt" 2>&1
log "bench bf16 exit $?"
log "done"
