#!/usr/bin/env bash
# Issue 11 (every token count) and the sm90 mmvq keys' refit after the mms
# tiles' activation copies went through L1 (cp.async.ca), one call:
#   1. nvcc of main's mmvq source and, when .exp/ is carried, of branch
#      exp/mmc2's (.exp/mmvq_sm90.hip, kgen_hip.h, gen-mmc.xz: mmc128 with
#      its weight copies past L1 and its activation copies through it; make
#      them on that branch: mkdir -p .exp && cp generated/hip/mmvq_sm90.hip
#      generated/hip/kgen_hip.h .exp/ && CGO_ENABLED=0 go build -o
#      .exp/gen-mmc ./cmd/gen && xz -f .exp/gen-mmc; .exp/ is git-ignored
#      locally, carried as bin/ and .gl/ are)
#      When .lean/ is carried (mmvq_sm90.hip and kgen_hip.h of branch
#      exp/lean: mma_q4k fetching each sub-block's activations and scales
#      in its loop), that source too: the same variant names, so bin/gen
#   2. CUDA verify of the variants the A/Bs time (main: one of each mms); the
#      registers of the mms128/mmc128 kernels of each build
#   3. bf16 cuBLAS graph-timed with same-size reads of the Q4_K bytes on the
#      Q4_K target shapes at tokens 1..8
#   4. (exp, lean) forced mms128 (main) / mmc128 (exp) / mms128 (lean) on
#      the target shapes at 3, 4, 5, 8 tokens, A E L A E L
#   4b. (pdl) when .pdl/ is carried (branch exp/pdl: mmvq_sm90.hip,
#      kgen_hip.h, gen-pdl.xz): programmatic dependent launches, forced sw32
#      at 1 token and mms128 at 8 on the target shapes: main graph-timed (A),
#      the pdl build graph-timed (P0: its L2 ask and wait, no overlap) and
#      with --launch pdl (P), A P0 P A P0 P
#   4c. (mmsk) when .mmsk/ is carried (branch exp/mmsk: mmvq_sm90.hip,
#      kgen_hip.h, gen-mmsk.xz): mms128 split-K over 2 and 3 workgroups a
#      tile (mms128k2, mms128k3) against mms128, forced, on the target
#      shapes at 3, 4, 5, 8 tokens, M K2 K3 M K2 K3
#   5. ncu of mms128 at 8 tokens (one layer)
#   6. the CUDA Q4_K suite (every candidate) on the ten models of
#      bench/select-shapes.yaml at tokens 1..8, so the keys can be refitted
#      and scored leaving one model out on one call's timings
# Needs bin/gen.xz and .gl carried (.exp, .lean, .pdl, .mmsk when there). Results in $OUT/r.tgz.
for x in bin/*.xz .exp/*.xz .pdl/*.xz .mmsk/*.xz; do [ -e "$x" ] && xz -d -f "$x"; done; chmod +x bin/* .exp/gen-mmc .pdl/gen-pdl .mmsk/gen-mmsk 2>/dev/null
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-560}
begin
exp=; [ -e .exp/gen-mmc ] && exp=1
lean=; [ -e .lean/mmvq_sm90.hip ] && lean=1
pdl=; [ -e .pdl/gen-pdl ] && pdl=1
mmsk=; [ -e .mmsk/gen-mmsk ] && mmsk=1
log "nvcc (exp: ${exp:-no}, lean: ${lean:-no}, pdl: ${pdl:-no}, mmsk: ${mmsk:-no})"
bash bench/nvcc-split.sh generated/hip/mmvq_sm90.hip 8 /tmp/nv > /tmp/nvA.txt 2> "$r/nvcc.txt" &
[ -n "$exp" ] && bash bench/nvcc-split.sh .exp/mmvq_sm90.hip 8 /tmp/nvE > /tmp/nvE.txt 2>> "$r/nvcc.txt" &
[ -n "$lean" ] && bash bench/nvcc-split.sh .lean/mmvq_sm90.hip 8 /tmp/nvL > /tmp/nvL.txt 2>> "$r/nvcc.txt" &
[ -n "$pdl" ] && bash bench/nvcc-split.sh .pdl/mmvq_sm90.hip 8 /tmp/nvP > /tmp/nvP.txt 2>> "$r/nvcc.txt" &
[ -n "$mmsk" ] && bash bench/nvcc-split.sh .mmsk/mmvq_sm90.hip 8 /tmp/nvK > /tmp/nvK.txt 2>> "$r/nvcc.txt" &
wait
A=$(cat /tmp/nvA.txt); E=$(cat /tmp/nvE.txt 2>/dev/null); L=$(cat /tmp/nvL.txt 2>/dev/null); P=$(cat /tmp/nvP.txt 2>/dev/null)
K=$(cat /tmp/nvK.txt 2>/dev/null)
[ -n "$A" ] || { log "nvcc failed"; cat "$r/nvcc.txt"; exit 1; }
log "nvcc done"
# (main's mms variants are the code run 06ca verified, 12 of 12: one each
# here; of the experiments, the variants the A/Bs time)
verifyvariants "$A" "" mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t8_mms192 mmvq_q4_k_r16_t4_mms256
# registers of the t4/t8 mms128, mma128 (and mmc128) kernels of each build
for b in A:nv E:nvE L:nvL K:nvK; do regs "${b%%:*}" "_t[48]_mm[acs]128" /tmp/${b#*:}/*.cubin; done | tee "$r/resources.txt"
[ -n "$E" ] && GEN=.exp/gen-mmc verifyvariants "$E" exp mmvq_q4_k_r16_t4_mmc128 mmvq_q4_k_r16_t8_mmc128
[ -n "$L" ] && verifyvariants "$L" lean mmvq_q4_k_r16_t4_mms128 mmvq_q4_k_r16_t8_mms128
[ -n "$K" ] && GEN=.mmsk/gen-mmsk verifyvariants "$K" mmsk mmvq_q4_k_r16_t4_mms128k2 mmvq_q4_k_r16_t8_mms128k2 mmvq_q4_k_r16_t4_mms128k3 mmvq_q4_k_r16_t8_mms128k3
[ -n "$P" ] && GEN=.pdl/gen-pdl verifyvariants "$P" pdl mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r2_t1_sw32 mmvq_q4_k_r4_t1_sw32 mmvq_q6_k_r4_t4_wg128
sed 's/^tokens: .*/tokens: [1, 2, 3, 4, 5, 6, 7, 8]/' bench/mmvq-shapes-target.yaml > /tmp/st.yaml
c=$(left); [ "$c" -gt 100 ] && c=100
PYTHONUNBUFFERED=1 timeout "$c" python3 bench/cublas.py /tmp/st.yaml "$r/cublas.json" bf16 q4_k > "$r/cublas.txt" 2>&1
log "cublas exit $?: $(tail -n 1 "$r/cublas.txt")"
if [ -n "$E$L" ]; then
  sed 's/^tokens: .*/tokens: [3, 4, 5, 8]/' bench/mmvq-shapes-target.yaml > /tmp/s.yaml
  for run in A:mms128 E:mmc128 L:mms128 A2:mms128 E2:mmc128 L2:mms128; do
    side=${run%%:*} t=${run#*:} g=bin/gen mod=$A
    case $side in E*) [ -n "$E" ] || continue; g=.exp/gen-mmc mod=$E ;; L*) [ -n "$L" ] || continue; mod=$L ;; esac
    KGEN_FORCE=mmvq:tile=$t timeout 100 $g bench --backend cuda --family mmvq --module "$mod" --reps 20 --dtypes q4_k --shapes /tmp/s.yaml --out "$r/ab-$side-$t.json" > "$r/ab-$side-$t.txt" 2>&1
    log "$run exit $?"
  done
fi
if [ -n "$P" ]; then
  for tk in 1:sw32 8:mms128; do
    sed "s/^tokens: .*/tokens: [${tk%%:*}]/" bench/mmvq-shapes-target.yaml > /tmp/sp.yaml
    for side in A P0 P A2 P02 P2; do
      g=.pdl/gen-pdl mod=$P l=graph
      case $side in A*) g=bin/gen mod=$A ;; P0*) ;; P*) l=pdl ;; esac
      KGEN_FORCE=mmvq:tile=${tk#*:} timeout 60 $g bench --backend cuda --family mmvq --module "$mod" --launch $l --reps 20 --dtypes q4_k --shapes /tmp/sp.yaml \
        --out "$r/pdl-$side-t${tk%%:*}.json" > "$r/pdl-$side-t${tk%%:*}.txt" 2>&1
      log "pdl $side t${tk%%:*} exit $?"
    done
  done
fi
if [ -n "$K" ]; then
  sed 's/^tokens: .*/tokens: [3, 4, 5, 8]/' bench/mmvq-shapes-target.yaml > /tmp/s.yaml
  for run in M:mms128 K2:mms128k2 K3:mms128k3 M2:mms128 K22:mms128k2 K32:mms128k3; do
    KGEN_FORCE=mmvq:tile=${run#*:} timeout 100 .mmsk/gen-mmsk bench --backend cuda --family mmvq --module "$K" --reps 20 --dtypes q4_k --shapes /tmp/s.yaml \
      --out "$r/mmsk-${run%%:*}.json" > "$r/mmsk-${run%%:*}.txt" 2>&1
    log "mmsk $run exit $?"
  done
fi
# ncu of mms128 (.ca) at 8 tokens on llama-3.1-8b gate_up: what holds it now
printf 'tokens: [8]\nmodels:\n  llama-3.1-8b:\n    gate_up: {n: 14336, k: 4096}\n' > /tmp/one.yaml
KGEN_FORCE=mmvq:tile=mms128 timeout 45 ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
  -k regex:mmvq_q4_k --launch-skip 3 --launch-count 1 \
  bin/gen bench --backend cuda --family mmvq --module "$A" --reps 2 --rounds 1 --dtypes q4_k --shapes /tmp/one.yaml --out /tmp/x.json > "$r/ncu-mms128.txt" 2>&1
log "ncu exit $?"
# The suite in two files, the fitted-on models first (a timeout loses only
# the second): bench/mmvq-shapes.yaml's four at tokens 1..8, then the other
# six of bench/select-shapes.yaml.
sed 's/^tokens: .*/tokens: [1, 2, 3, 4, 5, 6, 7, 8]/' bench/mmvq-shapes.yaml > /tmp/suite4.yaml
awk '/^  qwen2.5-14b:/{p=1} /^tokens:|^models:/{print} p' bench/select-shapes.yaml > /tmp/suite6.yaml
for part in 4 6; do
  [ "$(left)" -gt 30 ] || { log "no time left for suite$part"; break; }
  timeout "$(left)" bin/gen bench --backend cuda --family mmvq --module "$A" --reps 10 --dtypes q4_k \
    --shapes /tmp/suite$part.yaml --out "$r/mmvq-suite$part-cuda-q4_k.json" > "$r/mmvq-suite$part-cuda-q4_k.txt" 2>&1
  log "suite$part exit $? ($(grep -c heuristic "$r/mmvq-suite$part-cuda-q4_k.txt") cases)"
done
log done
