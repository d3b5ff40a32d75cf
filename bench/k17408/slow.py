"""Summary of the K 17408 probes' gen bench files: per case the fastest time,
the r8 xs128d tile's, and the candidates over 2.2x the fastest (the slow
third of a cold shader cache; a few scalar tiles are that slow warm too).
Usage: python3 bench/k17408/slow.py FILE.json..."""
import json
import os
import sys

for path in sys.argv[1:]:
    for r in json.load(open(path))['results']:
        t = r['times']
        m = min(t.values())
        slow = sorted(k.split('_', 3)[3] for k, v in t.items() if v > 2.2 * m)
        xs = t.get('mmvq_%s_r8_t%d_xs128d' % (r['Dtype'].lower(), r['M']), 0)
        print(os.path.basename(path), r['Layer'], r['Dtype'], r['M'], '%d MiB' % (r.get('rotated_bytes', 0) >> 20),
              'fastest %.1f' % m, 'xs128d r8 %.1f' % xs, 'slow>2.2x:', len(slow), ' '.join(slow[:12]))
