#!/usr/bin/env bash
# Run h100-2026-12-06o: main with the mms tiles staging buffer 16-byte aligned (cp.async),
# nvcc, CUDA verify of every sm90 mmvq variant, memcheck of four mms tiles, mms128 on the
# Q4_K target shapes (KGEN_FORCE). Needs bin/gen (carried as bin/gen.xz) and .gl.
set -u
. bench/device-env.sh
begin
mv=$(bash bench/nvcc-split.sh generated/hip/mmvq_sm90.hip 14 /tmp/nv 2>/dev/null) || { log "nvcc failed"; exit 1; }
log "nvcc done"
cudaverify "$mv"
memcheck mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t4_mms192 mmvq_q4_k_r16_t2_mms256 mmvq_q4_k_r16_t1_mms128
sed 's/^tokens: .*/tokens: [2, 4, 8]/' bench/mmvq-shapes-target.yaml > /tmp/s.yaml
KGEN_FORCE=mmvq:tile=mms128 timeout 150 bin/gen bench --backend cuda --family mmvq --module "$mv" --reps 20 --dtypes q4_k --shapes /tmp/s.yaml --out "$r/mms128-aligned.json" > "$r/mms128-aligned.txt" 2>&1
log "mms128 bench exit $?"
