#!/usr/bin/env bash
# Run h100-2026-12-06q: the mms128 / mms192 tiles with __launch_bounds__ minimum blocks (4 of 128
# lanes, 3 of 192: registers capped at 128 / 96, as ncu run 06p suggested for their 3-block
# occupancy and 2.26-wave tail) against the generated ones, A B A B in one call, Q4_K target
# shapes at 3, 4, 5, 8 tokens (KGEN_FORCE per tile). Needs bin/gen.xz and .gl carried.
set -u
. bench/device-env.sh
export KGEN_TUNE_CACHE=off
mkdir -p /tmp/srcB && cp generated/hip/kgen_hip.h /tmp/srcB/
sed -E 's/^KG_KERNEL\(128\) (mmvq_q4_k_r16_t[0-9]_mms128)\(/KG_KERNEL_MIN(128, 4) \1(/; s/^KG_KERNEL\(192\) (mmvq_q4_k_r16_t[0-9]_mms192)\(/KG_KERNEL_MIN(192, 3) \1(/' generated/hip/mmvq_sm90.hip > /tmp/srcB/mmvq_sm90.hip
grep -c "KG_KERNEL_MIN(128, 4)\|KG_KERNEL_MIN(192, 3)" /tmp/srcB/mmvq_sm90.hip
A=$(bash bench/nvcc-split.sh generated/hip/mmvq_sm90.hip 14 /tmp/nvA 2>/dev/null) && B=$(bash bench/nvcc-split.sh /tmp/srcB/mmvq_sm90.hip 14 /tmp/nvB 2>/dev/null) || { echo nvcc failed; exit 1; }
for f in /tmp/nvB/*.cubin; do cuobjdump --dump-resource-usage $f 2>/dev/null | grep -A1 "mms1[29][82]" | grep -o "REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste -sd' ' ; done | sort | uniq -c | head
timeout 60 bin/gen verify --backend cuda --arch sm90 --module "$B" --family mmvq 2>&1 | grep "^verified"
sed 's/^tokens: .*/tokens: [3, 4, 5, 8]/' bench/mmvq-shapes-target.yaml > /tmp/s.yaml
for side in A B A2 B2; do
  mod=$A; [ "${side:0:1}" = B ] && mod=$B
  for t in mms128 mms192; do
    KGEN_FORCE=mmvq:tile=$t timeout 100 bin/gen bench --backend cuda --family mmvq --module "$mod" --reps 20 --dtypes q4_k --shapes /tmp/s.yaml --out $OUT/lb-$side-$t.json > $OUT/lb-$side-$t.txt 2>&1
    echo "$side $t exit $?"
  done
done
python3 - $OUT << 'PY'
import json, sys, statistics
o = sys.argv[1]
for t in ['mms128', 'mms192']:
    for a, b in [('A', 'B'), ('A2', 'B2'), ('A', 'A2')]:
        da = {(r['Model'], r['Layer'], r['M']): r['tuned_us'] for r in json.load(open(f'{o}/lb-{a}-{t}.json'))['results']}
        db = {(r['Model'], r['Layer'], r['M']): r['tuned_us'] for r in json.load(open(f'{o}/lb-{b}-{t}.json'))['results']}
        rs = [db[k] / da[k] for k in da if k in db]
        print(t, f'{b}/{a}', len(rs), 'median %.3f min %.3f max %.3f' % (statistics.median(rs), min(rs), max(rs)))
PY
