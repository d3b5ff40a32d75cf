#!/usr/bin/env bash
# CUDA `gen verify --family mmvq` of every sm90 variant and memcheck of the
# issue 11 list (bench/mmvq-issue11-run.sh's MEMCHECK), one short device
# call (about 4 min) for a head whose Vulkan shaders did not change.
# Needs bin/gen.xz carried (and .gl for the loader). Results in $OUT/r.tgz.
set -u
. bench/device-env.sh
DEADLINE=${DEADLINE:-300}
begin
mv=$(nvccparts generated/hip/mmvq_sm90.hip 13 /tmp/nv) || exit 1
cudaverify "$mv"
memcheck ${MEMCHECK:-mmvq_q4_k_r16_t8_mms128 mmvq_q4_k_r16_t8_mmp128 mmvq_q4_k_r16_t4_mmp128 mmvq_q4_k_r16_t2_mms256 mmvq_q4_k_r16_t4_mma512 mmvq_q4_k_r4_t1_sw32 mmvq_q4_k_r4_t4_st128 mmvq_q6_k_r2_t4_sk4 mmvq_q8_0_r4_t8_wg256}
log done
