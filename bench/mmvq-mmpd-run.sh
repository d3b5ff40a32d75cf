#!/usr/bin/env bash
# mmp128 with X in dynamic LDS (K up to 7168 at 8 tokens, 14336 at 4; commit
# 5d9ca0c, branch exp/mmp-dyn: measured in run h100-2026-12-07c, 1-16% slower
# than the static mmp128 and reverted on main), one
# device call of about 6 min on the checkout's build:
#   1. nvcc (parts in parallel); registers and LDS of mmp128 / mms128
#   2. CUDA `gen verify --family mmvq` (every variant), memcheck of both
#      mmp128 variants
#   3. the Q4_K suite of bench/select-shapes.yaml's layers of K > 4096 (the
#      ones mmp128 newly reaches) at 3..8 tokens, every candidate timed
#   4. bf16 cuBLAS (graph) and the Q4_K suite on issue 11's shapes
#      (bench/mmvq-shapes.yaml) in the same call, while DEADLINE allows
# Needs bin/gen.xz and .gl carried. Results in $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-420}
begin
mv=$(nvccparts generated/hip/mmvq_sm90.hip 13 /tmp/nv) || exit 1
regs main "_t[48]_mm[sp]128" /tmp/nv/*.cubin | tee "$r/resources.txt"
cudaverify "$mv"
memcheck mmvq_q4_k_r16_t8_mmp128 mmvq_q4_k_r16_t4_mmp128
python3 - > /tmp/sel-k.yaml <<'PY'
import re
out, model, layers = [], None, []
def flush():
    if model and layers:
        out.extend([model] + layers)
for line in open("bench/select-shapes.yaml"):
    m = re.match(r"\s+(\w+):\s+\{n: (\d+),\s+k: (\d+)\}", line)
    if line.startswith("tokens:"):
        out.append("tokens: [3, 4, 5, 6, 7, 8]\n")
    elif m:
        if int(m.group(3)) > 4096:
            layers.append(line)
    elif re.match(r"  [\w.-]+:", line):
        flush()
        model, layers = line, []
    elif not line.startswith(" "):
        out.append(line)
flush()
print("".join(out), end="")
PY
q4kbench mmvq-k-cuda-q4_k /tmp/sel-k.yaml 10 "$mv"
if [ "$(left)" -gt 120 ]; then
  log "cublas"
  cublas bench/mmvq-shapes.yaml
  q4kbench mmvq-issue11-q4_k bench/mmvq-shapes.yaml 20 "$mv"
fi
log done
