#!/usr/bin/env bash
# The mms tiles' activation copies through L1 (cp.async.ca) instead of L2 only
# (.cg): at 8 tokens a 16-row tile re-reads as many activation bytes as it
# streams weight bytes, all from L2 (ncu of mmc128: L2 62% busy, DRAM 34%);
# the 3-4 workgroups of an SM walk the same superblocks at about the same
# time, so L1 could serve most of those re-reads (ncu, run h100-2026-12-06mc).
# Run h100-2026-12-06ca ran it before the change (A .cg, C .ca); since main
# copies through L1 (15dacdb), A = the generated source with kgen_hip.h's
# cp.async.ca -> .cg, C = generated. Forced mms128 / mms192 on the Q4_K
# target shapes at 3, 4, 5, 8 tokens, A C A C. Needs bin/gen.xz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-300}
begin
mkdir -p /tmp/srcA && cp generated/hip/mmvq_sm90.hip /tmp/srcA/
sed 's/cp\.async\.ca\.shared\.global/cp.async.cg.shared.global/' generated/hip/kgen_hip.h > /tmp/srcA/kgen_hip.h
grep -c "cp.async.cg.shared" /tmp/srcA/kgen_hip.h | sed 's/^/A edits: /' | tee -a "$r/log.txt"
nvccab 8 || exit 1
C=$B
verifyvariants "$A" A $(q4ktiles mms128 mms192 mms256)
verifyvariants "$C" C $(q4ktiles mms128 mms192 mms256)
sed 's/^tokens: .*/tokens: [3, 4, 5, 8]/' bench/mmvq-shapes-target.yaml > /tmp/s.yaml
REPS=${REPS:-20} forcedruns ca /tmp/s.yaml A:mms128 C:mms128 A:mms192 C:mms192 A2:mms128 C2:mms128 A2:mms192 C2:mms192
log done
