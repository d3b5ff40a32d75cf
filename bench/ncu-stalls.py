#!/usr/bin/env python3
"""ncu-stalls.py CSV...: one line per `ncu --csv --page raw` file of
bench/mms-stall-run.sh: instructions executed, cycles a warp spends per
issued instruction by stall reason (largest first, >= 0.05) and the
instructions of each pipe (the pipes' plain .sum counters)."""
import csv
import re
import sys

for path in sys.argv[1:]:
    rows = list(csv.reader(l for l in open(path) if l.startswith('"')))
    if len(rows) < 3:
        print(f"{path}: no metrics")
        continue
    d = dict(zip(rows[0], rows[2]))
    num = lambda v: float(v.replace(",", ""))
    stalls = {}
    for k, v in d.items():
        m = re.match(r"smsp__average_warps_issue_stalled_(.*)_per_issue_active\.ratio$", k)
        if m and v:
            stalls[m.group(1)] = num(v)
    pipes = {k[len("smsp__inst_executed_pipe_"):-len(".sum")]: num(v) for k, v in d.items()
             if re.match(r"smsp__inst_executed_pipe_[a-z0-9_]+\.sum$", k) and v and num(v) > 0}
    name = re.sub(r".*ncu-", "", path).removesuffix(".csv")
    print(f"{name}: {num(d['smsp__inst_executed.sum']):,.0f} warp instructions; "
          f"cycles per issue {sum(stalls.values()):.2f}")
    print("  stalls: " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(stalls.items(), key=lambda x: -x[1]) if v >= 0.05))
    print("  pipes:  " + ", ".join(f"{k} {v:,.0f}" for k, v in pipes.items() if "pred" not in k and "type" not in k))
