#!/usr/bin/env bash
# The persistent mmp128 (branch exp/mmp) beside every other candidate, one
# device call of about 6 min:
#   1. nvcc of exp/mmp's sm90 mmvq source (.mmp/mmvq_sm90.hip, kgen_hip.h;
#      make them on that branch: mkdir -p .mmp && cp generated/hip/mmvq_sm90.hip
#      generated/hip/kgen_hip.h .mmp/ && CGO_ENABLED=0 go build -o
#      .mmp/gen-mmp ./cmd/gen && xz -f .mmp/gen-mmp; .mmp/ is git-ignored)
#   2. registers of mmp128 / mms128, CUDA verify of both mmp128 variants
#      (t4, t8) and mms128 t8 (the control)
#   3. the Q4_K suite of the ten models of bench/select-shapes.yaml at 3..8
#      tokens, every candidate graph-timed (mmp128 where tokens x K <= 32768)
#   4. (before 3) compute-sanitizer memcheck of both mmp128; then cuBLAS bf16 and the
#      Q4_K suite on issue 11's shapes (bench/mmvq-shapes.yaml) while
#      DEADLINE allows
# Needs .mmp carried (and .gl for the loader). Results in $OUT/r.tgz.
for x in .mmp/*.xz; do [ -e "$x" ] && xz -d -f "$x"; done; chmod +x .mmp/gen-mmp
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-560}
begin
M=$(nvccparts .mmp/mmvq_sm90.hip 12 /tmp/nvP) || exit 1
regs mmp "_t[48]_mm[sp]128" /tmp/nvP/*.cubin | tee "$r/resources.txt"
GEN=.mmp/gen-mmp verifyvariants "$M" mmp mmvq_q4_k_r16_t4_mmp128 mmvq_q4_k_r16_t8_mmp128 mmvq_q4_k_r16_t8_mms128
for v in mmvq_q4_k_r16_t8_mmp128 mmvq_q4_k_r16_t4_mmp128; do
  timeout 60 compute-sanitizer --tool memcheck --print-limit 3 .mmp/gen-mmp verify --backend cuda --arch sm90 \
    --module "$M" --variant $v > "$r/memcheck-$v.txt" 2>&1
  log "memcheck $v: $(grep -c 'Invalid' "$r/memcheck-$v.txt") invalid-access records; $(grep 'ERROR SUMMARY' "$r/memcheck-$v.txt" | head -1)"
  grep -m 12 -E 'Invalid|at .*0x|by thread|Address|mmvq_' "$r/memcheck-$v.txt" | head -12 | tee -a "$r/log.txt"
done
sed 's/^tokens: .*/tokens: [3, 4, 5, 6, 7, 8]/' bench/select-shapes.yaml > /tmp/sel.yaml
GEN=.mmp/gen-mmp q4kbench mmvq-mmp-cuda-q4_k /tmp/sel.yaml 10 "$M"
if [ "$(left)" -gt 120 ]; then
  log "cublas"
  cublas bench/mmvq-shapes.yaml
  GEN=.mmp/gen-mmp q4kbench mmvq-mmp-issue11-q4_k bench/mmvq-shapes.yaml 20 "$M"
fi
log done
