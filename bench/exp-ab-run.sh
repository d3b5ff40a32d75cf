#!/usr/bin/env bash
# tile-ab-run.sh with B taken from a branch built elsewhere, so one carried
# checkout of main serves both card kinds (card-run.sh: an H200 runs issue
# 11 with main's bin/gen; another card runs this with CARD_RUN=exp-ab-run):
#   .exp/B/gen.xz         bin/gen built on the branch (xz -9)
#   .exp/B/mmvq_sm90.hip  the branch's generated/hip/mmvq_sm90.hip
#   .exp/mmvq_sm90_main.hip  A, main's (as tile-ab-run.sh)
# The device's copy of the tree is overwritten, never this checkout.
# AB_DEADLINE, when set, replaces DEADLINE (one call: DEADLINE=585 for an
# H200's issue 11 run, AB_DEADLINE=150 for the A/B alone, no suites).
set -u
[ -n "${AB_DEADLINE:-}" ] && export DEADLINE=$AB_DEADLINE
for f in .exp/B/gen.xz .exp/B/mmvq_sm90.hip .exp/mmvq_sm90_main.hip; do
  [ -e "$f" ] || { echo "exp-ab-run: $f missing (see this script's header)" >&2; exit 2; }
done
cp .exp/B/mmvq_sm90.hip generated/hip/mmvq_sm90.hip
xz -dc .exp/B/gen.xz > bin/gen && chmod +x bin/gen && rm -f bin/gen.xz
exec bash bench/tile-ab-run.sh
