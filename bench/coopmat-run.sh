#!/bin/bash
# Run 02cm (helper coopmat, issue 14 item 3): the Vulkan cooperative-matrix
# gemv tiles on the H200. Verify the cm variants (and two old ones), the
# device's VK_NV_cooperative_matrix shapes (printed in verify's device line),
# copy bandwidth (bench/cublas.py on one shape), gen bench over
# bench/coopmat-shapes.yaml (bf16, f16; tokens 4, 8; every candidate timed),
# then ggml's Vulkan dense peer. Everything ends by DEADLINE seconds.
set -u
out=${OUT:-/tmp/kgen-out}; r=$out/r; mkdir -p "$r"
pack() { tar -C "$out" -czf "$out/r.tgz" r; }
trap pack EXIT
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$r/gpu.txt"
log() { echo "[$(date +%T) +${SECONDS}s] $*" | tee -a "$r/log.txt"; }
DEADLINE=${DEADLINE:-330}
left() { local b=$1 l=$((DEADLINE - SECONDS - 5)); [ $l -lt $b ] && b=$l; [ $b -lt 1 ] && b=1; echo $b; }
timeout() { command timeout -k 10 "$@"; }
log "copy bandwidth (background)"
( PYTHONUNBUFFERED=1 timeout 90 python3 bench/cublas.py bench/coopmat-copy.yaml "$r/cublas.json" bf16 > "$r/cublas.txt" 2>&1 ) &
log "verify"
for v in gemv_bf16_p8_r16_t4_cm128 gemv_bf16_p8_r16_t8_cm128 gemv_bf16_p8_r16_t4_cm256 gemv_bf16_p8_r16_t8_cm256 \
         gemv_f16_p8_r16_t4_cm128 gemv_f16_p8_r16_t8_cm128 gemv_f16_p8_r16_t4_cm256 gemv_f16_p8_r16_t8_cm256 \
         gemv_bf16_p8_r4_t8_wg256 gemv_bf16_p8_r2_t4_wg128; do
  timeout $(left 40) bin/gen verify --backend vulkan --family gemv --variant $v >> "$r/verify-vulkan.txt" 2>&1; echo "exit $? $v" >> "$r/verify-vulkan.txt"
done
grep -h "^verify: device\|^verified\|^exit\|FAIL\|fail" "$r/verify-vulkan.txt" | head -40 | tee -a "$r/log.txt"
wait
tail -n 1 "$r/cublas.txt" | tee -a "$r/log.txt"
log "bench vulkan"
timeout $(left 170) bin/gen bench --backend vulkan --dtypes bf16,f16 --reps 10 --rounds 2 --shapes bench/coopmat-shapes.yaml --out "$r/vulkan-cm.json" > "$r/vulkan-cm.txt" 2>&1
log "bench vulkan exit $?"
log "ggml dense"
OUTFILE="$r/ggml-dense.txt" timeout $(left 110) bash .peers/ggml-vulkan/run.sh dense > "$r/ggml-dense-table.txt" 2>&1
log "ggml dense exit $?"
