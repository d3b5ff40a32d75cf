# The issue 11 table of a run: python3 bench/issue11-picks.py RUN [SUITE] (needs /tmp/gen: go build -o /tmp/gen ./cmd/gen).
# SUITE: the mmvq bench file's name after RUN- (default mmvq-mmp-issue11-q4_k); its format is the rows' own. Where the
# suite timed the quantize + GEMV pair (--pair), its time and the pair's ratio to cuBLAS close the line.
import json,subprocess,sys,gzip,os
# a result file may be committed as NAME.gz (benchreport reads both)
def load(p): return json.load(gzip.open(p+'.gz') if not os.path.exists(p) and os.path.exists(p+'.gz') else open(p))
run=sys.argv[1]
suite=sys.argv[2] if len(sys.argv)>2 else 'mmvq-mmp-issue11-q4_k'
cb=load((f'bench/results/{run}-cublas.json'))
cu={(r['model'],r['layer'],r['m']):r['graph_us'] for r in cb['results']}
copy=cb['copy_gbps']
d=load((f'bench/results/{run}-{suite}.json'))
print(f"# {run}: issue 11's {d['results'][0]['Dtype'].upper()} target shapes (64 MiB+ of bf16 weights), kgen vs bf16 cuBLAS, both graph-timed in the same call")
print(f"# (copy {copy:.0f} GB/s). heur: the pick of `gen explain --arch sm90` at this commit, its time from this call; tuned: the fastest candidate.")
for r in d['results']:
  if r['N']*r['K']*2 < 64*2**20: continue
  key=(r['Model'],r['Layer'],r['M'])
  if key not in cu: continue
  e=subprocess.run(['/tmp/gen','explain','--arch','sm90','--family','mmvq','--dtype',r['Dtype'],'--m',str(r['M']),'--n',str(r['N']),'--k',str(r['K'])],capture_output=True,text=True).stdout
  pick=next((tok for line in e.splitlines() for tok in line.split() if tok.startswith('mmvq_'+r['Dtype'])),None)
  t=r['times']; best=min(t,key=t.get); tt=t[best]; hp=t.get(pick); c=cu[key]
  pair=' | pair %7.1f us %.2fx'%(r['pair_us'],c/r['pair_us']) if r.get('pair_us') else ''
  print('%-13s %-8s m=%d cublas %7.1f us | heur %-28s %7.1f us %.2fx | tuned %-28s %7.1f us %.2fx %3.0f%% of copy%s'%(r['Model'],r['Layer'],r['M'],c,pick,hp,c/hp,best,tt,c/tt,r['weight_bytes']/tt/1e3/copy*100,pair))
