#!/usr/bin/env bash
# One weight format's tensor-core tiles (mmvq FMT mma128/mma512; FMT q6_k
# by default, q8_0), one device call: the sm90 source's FMT kernels only
# through nvcc (parts in parallel; the mma ones also with --resource-usage),
# cuBLAS bf16 (graph) on the suite, CUDA `gen verify` of each FMT mma
# variant and memcheck of two, the FMT suite (graph-timed, every FMT
# candidate, --pair f32), then while DEADLINE allows AFTER: vkverify (the
# whole mmvq family through NVIDIA's Vulkan driver, stopped at its summary:
# the driver hangs the process at exit; the default) or vksuite (the Vulkan
# mmvq suite for Q4_K, --pair f32).
# Needs bin/gen and .gl/ (carried). Results in $OUT/r, packed into $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-560} FMT=${FMT:-q6_k} AFTER=${AFTER:-vkverify}
begin

# the preamble and the kernels whose names match $1
only() { awk -v re="$1" '/^KG_KERNEL/ { started = 1; keep = ($0 ~ re) } !started || keep' generated/hip/mmvq_sm90.hip; }
mkdir -p /tmp/q6 && cp generated/hip/kgen_hip.h /tmp/q6/
only "mmvq_${FMT}_" > /tmp/q6/mmvq_sm90.hip
only "mmvq_${FMT}_r16_" > /tmp/q6/mma.cu
log "nvcc"
( cd /tmp/q6 && nvcc -x cu -std=c++17 -arch=sm_90 -O3 -cubin --resource-usage -o mma.cubin mma.cu > "$r/ptxas.txt" 2>&1 ) &
mv=$(bash bench/nvcc-split.sh /tmp/q6/mmvq_sm90.hip 12 /tmp/nv) || { log "nvcc mmvq failed"; exit 1; }
q1=$(bash bench/nvcc-split.sh generated/hip/quant_q8_1_sm90.hip 1 /tmp/nv) || { log "nvcc q8_1 failed"; exit 1; }
wait
log "nvcc done"

log "cublas"
cublas bench/mmvq-shapes.yaml

log "verify cuda $FMT mma"
for v in $(grep -o "KG_KERNEL([0-9]*) mmvq_${FMT}_r16_[a-z0-9_]*" /tmp/q6/mma.cu | awk '{print $2}'); do
  timeout 60 bin/gen verify --backend cuda --arch sm90 --module "$mv" --variant "$v" 2>&1 | tail -n 1
done > "$r/verify-cuda.txt" 2>&1
grep -c " 1 passed, 0 failed" "$r/verify-cuda.txt" | sed "s/^/verified $FMT mma variants: /" | tee -a "$r/log.txt"
memcheck mmvq_${FMT}_r16_t8_mma128 mmvq_${FMT}_r16_t1_mma512

log "bench $FMT suite"
timeout "$(left)" bin/gen bench --backend cuda --family mmvq --module "$mv,$q1" --reps "${REPS:-20}" --dtypes $FMT \
  --shapes bench/mmvq-shapes.yaml --pair f32 --out "$r/mmvq-cuda.json" > "$r/mmvq-cuda.txt" 2>&1
log "bench $FMT exit $? ($(grep -c heuristic "$r/mmvq-cuda.txt") cases)"

if [ "$AFTER" = vksuite ] && [ "$(left)" -gt 150 ]; then
  log "bench vulkan q4_k suite"
  timeout "$(left)" bin/gen bench --backend vulkan --family mmvq --reps 10 --dtypes q4_k \
    --shapes bench/mmvq-shapes.yaml --pair f32 --out "$r/mmvq-vulkan.json" > "$r/mmvq-vulkan.txt" 2>&1
  log "bench vulkan exit $? ($(grep -c heuristic "$r/mmvq-vulkan.txt") cases)"
elif [ "$(left)" -gt 60 ]; then
  log "verify vulkan mmvq"
  vkverify "$(left)" "$r/verify-vulkan.txt" --family mmvq --arch nvidia
  tail -n 2 "$r/verify-vulkan.txt" >> "$r/log.txt"
fi
log "done"
