"""The bandwidth a kernel can reach on exactly the bytes of a Q4_K GEMV
(issue 11's "85% of copy" target is set against the 4 GiB copy; a 20 us
layer cannot fill the pipe the way a 4 GiB copy does). For each shape of a
suite file with >= 64 MiB of bf16 weights, the Q4_K weight bytes (N x K/256
blocks of 144 bytes) moved by a device-to-device copy of half the bytes
(half read, half written, as bench/copy-sizes.py does for the quantizers),
launched once per buffer pair in one CUDA graph over pairs totalling >= 512
MiB (the L2 is 50 MB), the graph's time divided by the pairs, median of 10
replays after 3 warm-ups. (Run 07h also timed torch.sum over the bytes as
int32: 460-570 GB/s, the reduction's own limit, not a read roof; dropped.)
Prints 'mmvq-roof <model> <layer> bytes <b>: copy-same <us> us <GB/s> GB/s'.
Usage: python3 bench/copy-mmvq.py SUITE.yaml"""
import re
import sys

import torch


def shapes(path):
    model = None
    for line in open(path):
        m = re.match(r'^  ([\w.-]+):', line)
        if m and not line.startswith('   '):
            model = m.group(1)
            continue
        m = re.match(r'^\s+(\w+):\s*\{n:\s*(\d+),\s*k:\s*(\d+)\}', line)
        if m and model:
            yield model, m.group(1), int(m.group(2)), int(m.group(3))


def timed(fn, reps):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        fn()  # warm outside capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    for _ in range(3):
        g.replay()
    ts = []
    for _ in range(10):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); g.replay(); b.record(); torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) * 1000 / reps)
    return sorted(ts)[len(ts) // 2]


for model, layer, n, k in shapes(sys.argv[1]):
    if n * k * 2 < 64 << 20 or model == 'quant':
        continue
    total = n * (k // 256) * 144
    half = (total // 2 + 15) // 16 * 16
    pairs = max(2, -(-(512 << 20) // (2 * half)))
    src = [torch.empty(half, dtype=torch.uint8, device='cuda').random_() for _ in range(pairs)]
    dst = [torch.empty(half, dtype=torch.uint8, device='cuda') for _ in range(pairs)]
    cu = timed(lambda: [d.copy_(x) for d, x in zip(dst, src)], pairs)
    del src, dst
    print('mmvq-roof %s %s bytes %d: copy-same %.2f us %.0f GB/s' % (
        model, layer, total, cu, 2 * half / cu / 1e3), flush=True)
