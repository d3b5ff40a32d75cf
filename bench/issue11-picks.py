# The issue 11 table of a run: python3 bench/issue11-picks.py RUN (needs /tmp/gen: go build -o /tmp/gen ./cmd/gen).
import json,subprocess,sys
run=sys.argv[1]
cb=json.load(open(f'bench/results/{run}-cublas.json'))
cu={(r['model'],r['layer'],r['m']):r['graph_us'] for r in cb['results']}
copy=cb['copy_gbps']
d=json.load(open(f'bench/results/{run}-mmvq-mmp-issue11-q4_k.json'))
print(f"# {run}: issue 11's Q4_K target shapes (64 MiB+ of bf16 weights), kgen vs bf16 cuBLAS, both graph-timed in the same call")
print(f"# (copy {copy:.0f} GB/s). heur: the pick of `gen explain --arch sm90` at this commit, its time from this call; tuned: the fastest candidate.")
for r in d['results']:
  if r['N']*r['K']*2 < 64*2**20: continue
  key=(r['Model'],r['Layer'],r['M'])
  if key not in cu: continue
  e=subprocess.run(['/tmp/gen','explain','--arch','sm90','--family','mmvq','--dtype','q4_k','--m',str(r['M']),'--n',str(r['N']),'--k',str(r['K'])],capture_output=True,text=True).stdout
  pick=next((tok for line in e.splitlines() for tok in line.split() if tok.startswith('mmvq_q4_k')),None)
  t=r['times']; best=min(t,key=t.get); tt=t[best]; hp=t.get(pick); c=cu[key]
  print('%-13s %-8s m=%d cublas %7.1f us | heur %-28s %7.1f us %.2fx | tuned %-28s %7.1f us %.2fx %3.0f%% of copy'%(r['Model'],r['Layer'],r['M'],c,pick,hp,c/hp,best,tt,c/tt,r['weight_bytes']/tt/1e3/copy*100))
