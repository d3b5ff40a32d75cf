#!/usr/bin/env python3
# Tuned kgen GEMV against cuBLAS (both graph-timed, same run) on the select
# suite, for issue 13 (no slower than cuBLAS from 8 MiB; 1.25x at M=1 on
# 8-64 MiB) and issue 14 (bf16 M=2..8 from 64 MiB: 90% of copy).
# Usage: python3 bench/select-vs-cublas.py RUN-select-cuda.json RUN-cublas.json
import json,sys,gzip,os
# a result file may be committed as NAME.gz (benchreport reads both)
def load(p): return json.load(gzip.open(p+'.gz') if not os.path.exists(p) and os.path.exists(p+'.gz') else open(p))
s=load((sys.argv[1]))
c=load((sys.argv[2]))
copy=c['copy_gbps']
cub={(r['model'],r['layer'],r['m']):r for r in c['results']}
slow=[];m1=[];cop=[];n8=0
for r in s['results']:
    k=(r['Model'],r['Layer'],r['M']); cb=cub[k]
    wb=r['weight_bytes']; ratio=cb['graph_us']/r['tuned_us']
    if wb>=8<<20:
        n8+=1
        if ratio<1: slow.append((ratio,k,r['tuned'],r['tuned_us'],cb['graph_us'],wb>>20))
    if 8<<20<=wb<64<<20 and r['M']==1: m1.append((ratio,k,wb>>20))
    if wb>=64<<20 and 2<=r['M']<=8:
        pc=r['tuned_gbps']/copy*100; cop.append((pc,ratio,k,r['tuned']))
print("cases >=8MiB:",n8,"tuned slower than cuBLAS graph:",len(slow))
for x in sorted(slow): print("  %.3f %s %s %.1f vs %.1f %dMiB"%x)
print("8-64MiB M=1:",len(m1),"min ratio %.3f"%min(m1)[0], "below 1.25:",[ (round(a,3),b) for a,b,_ in m1 if a<1.25])
print(">=64MiB M=2..8:",len(cop),"below 90%% copy:",sum(1 for x in cop if x[0]<90),"slower than cuBLAS:",sum(1 for x in cop if x[1]<1))
print(" range %% copy %.1f-%.1f, x cuBLAS %.3f-%.3f"%(min(cop)[0],max(cop)[0],min(x[1] for x in cop),max(x[1] for x in cop)))
for x in sorted(cop)[:15]: print("  %.1f%% x%.3f %s %s"%x)
