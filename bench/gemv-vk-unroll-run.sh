#!/usr/bin/env bash
# Run h100-2026-12-06t: the Vulkan gemv tiles with their constant-bound
# loops marked [[unroll]] (bin/gen) against the same tiles before
# (bin/gen-old, built from the parent commit), on the decode suite's >= 64
# MiB shapes at tokens 1..8: verify (120 s cap), bench old / new, cuBLAS,
# old again. The A/B itself is bench/gemv-vk-ab-run.sh.
# Needs bin/gen, bin/gen-old, .gl/ (carried). Results in $OUT/r (r.tgz).
VERIFY_CAP=${VERIFY_CAP:-120} exec bash bench/gemv-vk-ab-run.sh "$@"
