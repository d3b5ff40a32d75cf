#!/usr/bin/env bash
# One GPU-machine run (see /work/.library/device): bash bench/h200-run.sh PHASE...
# Phases, in the order given:
#   verify  every variant: SPIR-V through NVIDIA's Vulkan (alongside the nvcc
#           builds), the sm90 HIP sources (all families) through CUDA, then
#           compute-sanitizer memcheck on tail shapes
#   verifycuda  the CUDA half of verify, and memcheck of one tensor-core variant
#   cublas  cuBLAS (torch) and copy/read bandwidth for the GEMV suite
#           (CUBLAS_SHAPES, default bench/decode-shapes.yaml)
#   cuda    GEMV bench, CUDA path, bf16, graph-timed (captured once, replays
#           timed, as engines run decode)   fp8     the same, fp8e4m3_bf16
#   eager   the cuda phase with --launch eager (host launches in the timed
#           region), for the launch overhead side by side
#   vulkan  GEMV bench, Vulkan path, bf16   quant   Q8_K / Q8_1 bench, both paths
#   tune    gen tune on the Qwen3-0.6B decode list (its time is the cost of tuning)
#   mmvq    quantized-weight GEMV (Q4_K, Q6_K, Q8_0 x Q8_1): bench CUDA (graph) and
#           Vulkan on bench/mmvq-shapes.yaml, each case alone and after its
#           quantizer on f32 activations (--pair f32: pair_us), then ggml's Vulkan
#           mul_mat_vec on the same weight types (.peers/ggml-vulkan, carried) as the peer
#   coopmat Vulkan GEMV bf16 (cooperative-matrix tiles among the candidates) on
#           bench/coopmat-shapes.yaml (>= 64 MiB, M 4..8), then --timing ggml on
#           bench/coopmat-ggml.yaml and ggml's Vulkan dense mul_mat_vec (.peers)
#   suite   GEMV bf16 on the grown suite (SUITE, default bench/decode-shapes.yaml),
#           CUDA graph-timed and Vulkan, every candidate's time (selection fitting),
#           in ROUNDS rounds (default 2: the second in reverse order)
# Needs bin/gen (CGO_ENABLED=0 go build -o bin/gen ./cmd/gen) and .gl/ (the
# Vulkan loader .debs). Everything lands in $OUT/r and, packed, $OUT/r.tgz
# (the device tool returns at most 8 files). Each phase has a time budget
# (seconds, env BUDGET_<phase>, capped by DEADLINE seconds from the start)
# so a run ends inside the tool's 10 minutes.
set -u
out=${OUT:-/tmp/kgen-out}; r=$out/r; mkdir -p "$r"
pack() { tar -C "$out" -czf "$out/r.tgz" r; }
trap pack EXIT
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$r/gpu.txt"
log() { echo "[$(date +%T) +${SECONDS}s] $*" | tee -a "$r/log.txt"; }

# The sm90 HIP sources as parallel cubins (bench/nvcc-split.sh).
build() {
  [ -n "${MODS:-}" ] && return
  log "nvcc"
  g=; [ "${BUILD_GEMV:-1}" = 1 ] && { g=$(bash bench/nvcc-split.sh generated/hip/gemv_sm90.hip 14 /tmp/nv) || { log "nvcc gemv failed"; exit 1; }; }
  q=$(bash bench/nvcc-split.sh generated/hip/quant_q8k_sm90.hip 1 /tmp/nv) || { log "nvcc q8k failed"; exit 1; }
  q1=$(bash bench/nvcc-split.sh generated/hip/quant_q8_1_sm90.hip 1 /tmp/nv) || { log "nvcc q8_1 failed"; exit 1; }
  mv=$(bash bench/nvcc-split.sh generated/hip/mmvq_sm90.hip 4 /tmp/nv) || { log "nvcc mmvq failed"; exit 1; }
  GEMV=$g; MODS=${g:+$g,}$q,$q1,$mv; QMODS=$q,$q1; MMVQ=$mv,$q1
  log "nvcc done"
}
# A phase's seconds: BUDGET_<phase> or its default, never past DEADLINE
# (seconds since the script started, default none) less 5 s to pack up.
budget() {
  local v="BUDGET_$1" b; b=${!v:-$2}
  if [ -n "${DEADLINE:-}" ]; then local left=$((DEADLINE - SECONDS - 5)); [ $left -lt $b ] && b=$left; [ $b -lt 1 ] && b=1; fi
  echo "$b"
}
# compute-sanitizer memcheck of `gen verify` on each named variant, with only
# the module holding it: a lookup in the other parts is a (harmless)
# CUDA_ERROR_NOT_FOUND that memcheck would count as an error.
memcheck() {
  log "memcheck"
  for v in "$@"; do
    m=$(grep -l "KG_KERNEL([0-9]*) $v(" /tmp/nv/*.cu | sed 's/\.cu$/.cubin/')
    echo "== $v ($m)"; timeout "$(budget memcheck 120)" compute-sanitizer --tool memcheck --print-limit 5 bin/gen verify --backend cuda --arch sm90 --module "$m" --variant "$v" 2>&1 | tail -n 4
  done > "$r/memcheck.txt" 2>&1
  grep -c "ERROR SUMMARY: 0 errors" "$r/memcheck.txt" | sed 's/^/memcheck clean runs: /' | tee -a "$r/log.txt"
}
# A hung kernel leaves its process deaf to SIGTERM: KILL after 10 s more.
timeout() { command timeout -k 10 "$@"; }

for phase in "$@"; do
  case $phase in
  verify)
    log "verify vulkan (background) + nvcc"
    ( timeout "$(budget verifyvk 300)" bin/gen verify --backend vulkan > "$r/verify-vulkan.txt" 2>&1; echo "exit $?" >> "$r/verify-vulkan.txt" ) &
    vk=$!
    build
    log "verify cuda"
    timeout "$(budget verify 300)" bin/gen verify --backend cuda --arch sm90 --module "$MODS" > "$r/verify-cuda.txt" 2>&1; echo "exit $?" >> "$r/verify-cuda.txt"
    wait $vk
    tail -n 2 "$r/verify-vulkan.txt" "$r/verify-cuda.txt" | tee -a "$r/log.txt"
    memcheck ${MEMCHECK:-gemv_bf16_p8_r4_t8_sk8 gemv_fp8e4m3_f16_p8_r2_t4_wg512 gemv_f32_p4_r1_t8_sg gemv_bf16_p8_r16_t8_mmask4 quant_q8k_bf16_wg mmvq_q6_k_r2_t4_sk4 mmvq_q4_k_r4_t8_wg256} ;;
  verifyq)
    # the quantizer and mmvq families only, both backends (their kernels
    # changed; the GEMV sources did not), then memcheck of MEMCHECK
    build
    log "verify quant + mmvq"
    for fam in quant_q8k quant_q8_1 mmvq; do
      timeout "$(budget verifyvk 120)" bin/gen verify --backend vulkan --family $fam > "$r/verify-vulkan-$fam.txt" 2>&1; echo "exit $?" >> "$r/verify-vulkan-$fam.txt"
    done &
    vk=$!
    timeout "$(budget verify 120)" bin/gen verify --backend cuda --arch sm90 --module "$QMODS,$mv" > "$r/verify-cuda.txt" 2>&1; echo "exit $?" >> "$r/verify-cuda.txt"
    wait $vk
    cat "$r"/verify-vulkan-*.txt > "$r/verify-vulkan.txt"
    grep -h "^verified\|^exit" "$r/verify-vulkan.txt" "$r/verify-cuda.txt" | tee -a "$r/log.txt"
    memcheck ${MEMCHECK:-quant_q8_1_f32_sg mmvq_q4_k_r16_t8_mma128} ;;
  verifycuda)
    build
    log "verify cuda"
    timeout "$(budget verify 120)" bin/gen verify --backend cuda --arch sm90 --module "$MODS" > "$r/verify-cuda.txt" 2>&1; echo "exit $?" >> "$r/verify-cuda.txt"
    tail -n 2 "$r/verify-cuda.txt" | tee -a "$r/log.txt"
    memcheck ${MEMCHECK:-gemv_bf16_p8_r16_t8_mmask4 gemv_fp8e4m3_bf16_p8_r16_t2_mma128 gemv_f16_p8_r16_t4_mma512} ;;
  cublas)
    log "cublas"
    PYTHONUNBUFFERED=1 timeout "$(budget cublas 300)" python3 bench/cublas.py "${CUBLAS_SHAPES:-bench/decode-shapes.yaml}" "$r/cublas.json" bf16 > "$r/cublas.txt" 2>&1
    tail -n 1 "$r/cublas.txt" | tee -a "$r/log.txt" ;;
  cuda|fp8|eager)
    build; d=bf16; [ $phase = fp8 ] && d=fp8e4m3_bf16; lm=graph; [ $phase = eager ] && lm=eager
    log "bench $phase"
    timeout "$(budget $phase 300)" bin/gen bench --backend cuda --launch $lm --module "$GEMV" --dtypes $d --shapes "${SHAPES:-bench/decode-shapes.yaml}" --out "$r/$phase.json" --tune-cache "$r/tune-$phase.json" > "$r/$phase.txt" 2>&1
    log "bench $phase exit $? ($(grep -c heuristic "$r/$phase.txt") cases)" ;;
  vulkan)
    log "bench vulkan"
    timeout "$(budget vulkan 300)" bin/gen bench --backend vulkan --dtypes bf16 --shapes "${VK_SHAPES:-bench/decode-shapes.yaml}" --out "$r/vulkan.json" > "$r/vulkan.txt" 2>&1
    log "bench vulkan exit $? ($(grep -c heuristic "$r/vulkan.txt") cases)" ;;
  quant)
    build
    log "bench quant"
    timeout "$(budget quant 150)" bin/gen bench --family quant_q8k,quant_q8_1 --backend cuda --module "$QMODS" --reps "${REPS:-20}" --dtypes "${QUANT_DTYPES:-f32,bf16}" --out "$r/quant-cuda.json" > "$r/quant-cuda.txt" 2>&1
    log "quant cuda exit $?"
    [ "${QUANT_VULKAN:-1}" = 1 ] && timeout "$(budget quantvk 120)" bin/gen bench --family quant_q8k,quant_q8_1 --backend vulkan --reps "${REPS:-20}" --dtypes "${QUANT_DTYPES:-f32,bf16}" --out "$r/quant-vulkan.json" > "$r/quant-vulkan.txt" 2>&1
    log "quant vulkan exit $?" ;;
  mmvq)
    build
    log "bench mmvq cuda"
    for be in cuda vulkan; do
      mod=; [ $be = cuda ] && mod="--module $MMVQ"
      timeout "$(budget mmvqggml 60)" bin/gen bench --backend $be --family mmvq $mod --reps "${REPS:-20}" --dtypes q4_k,q6_k,q8_0 --shapes bench/mmvq-ggml.yaml --pair f32 --out "$r/mmvq-ggml-$be.json" > "$r/mmvq-ggml-$be.txt" 2>&1
      log "mmvq ggml shape $be exit $?"
      # MMVQ_SUITE: the backends that also run the whole suite (default both)
      case " ${MMVQ_SUITE:-cuda vulkan} " in *" $be "*) ;; *) continue ;; esac
      timeout "$(budget mmvq 150)" bin/gen bench --backend $be --family mmvq $mod --reps "${REPS:-20}" --dtypes q4_k --shapes bench/mmvq-shapes.yaml --pair f32 --out "$r/mmvq-$be.json" > "$r/mmvq-$be.txt" 2>&1
      log "mmvq $be exit $? ($(grep -c heuristic "$r/mmvq-$be.txt") cases)"
    done
    if [ -d .peers/ggml-vulkan ]; then
      OUTFILE="$r/ggml-quant.txt" timeout "$(budget ggml 150)" bash .peers/ggml-vulkan/run.sh quant > "$r/ggml-quant-table.txt" 2>&1
      log "ggml quant exit $?"
    fi ;;
  coopmat)
    log "bench coopmat vulkan"
    timeout "$(budget coopmat 150)" bin/gen bench --backend vulkan --reps "${REPS:-10}" --rounds "${ROUNDS:-2}" --dtypes bf16 --shapes bench/coopmat-shapes.yaml --out "$r/coopmat-vulkan.json" > "$r/coopmat-vulkan.txt" 2>&1
    log "coopmat vulkan exit $? ($(grep -c heuristic "$r/coopmat-vulkan.txt") cases)"
    timeout "$(budget coopmatggml 40)" bin/gen bench --backend vulkan --reps 5 --dtypes bf16,f16 --shapes bench/coopmat-ggml.yaml --timing ggml --out "$r/coopmat-ggml-timing.json" > "$r/coopmat-ggml-timing.txt" 2>&1
    log "coopmat --timing ggml exit $?"
    if [ -d .peers/ggml-vulkan ]; then
      OUTFILE="$r/ggml-dense.txt" timeout "$(budget ggml 100)" bash .peers/ggml-vulkan/run.sh dense > "$r/ggml-dense-table.txt" 2>&1
      log "ggml dense exit $?"
    fi ;;
  suite)
    build
    log "bench suite cuda"
    timeout "$(budget suite 240)" bin/gen bench --backend cuda --module "$GEMV" --reps "${REPS:-20}" --rounds "${ROUNDS:-2}" --dtypes "${SUITE_DTYPES:-bf16}" --shapes "${SUITE:-bench/decode-shapes.yaml}" --out "$r/suite-cuda.json" > "$r/suite-cuda.txt" 2>&1
    log "suite cuda exit $? ($(grep -c heuristic "$r/suite-cuda.txt") cases)"
    timeout "$(budget suitevk 200)" bin/gen bench --backend vulkan --reps "${REPS:-20}" --rounds "${ROUNDS:-2}" --dtypes "${SUITE_DTYPES:-bf16}" --shapes "${SUITE:-bench/decode-shapes.yaml}" --out "$r/suite-vulkan.json" > "$r/suite-vulkan.txt" 2>&1
    log "suite vulkan exit $? ($(grep -c heuristic "$r/suite-vulkan.txt") cases)" ;;
  tune)
    build
    bin/gen tune --module "$GEMV" --shapes bench/shapes-qwen3-0.6b.yaml --cache "$r/tune.json" > "$r/tune.txt" 2>&1
    log "tune exit $?: $(tail -n 1 "$r/tune.txt")" ;;
  *) log "unknown phase $phase"; exit 2 ;;
  esac
done
log "done"
