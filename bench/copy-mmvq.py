"""The bandwidth a kernel can reach on exactly the bytes of a Q4_K GEMV
(issue 11's "85% of copy" target is set against the 4 GiB copy; a 20 us
layer cannot fill the pipe the way a 4 GiB copy does). For each shape of a
suite file with >= 64 MiB of bf16 weights, the Q4_K weight bytes (N x K/256
blocks of 144 bytes) moved two ways, each launched once per buffer in one
CUDA graph over buffers totalling >= 512 MiB (the L2 is 50 MB), the graph's
time divided by the buffers, median of 10 replays after 3 warm-ups:
  copy-same: a device-to-device copy of half the bytes (half read, half
             written), as bench/copy-sizes.py does for the quantizers
  read:      torch.sum over the bytes viewed as int32 (read-only)
Prints 'mmvq-roof <model> <layer> bytes <b>: copy-same <us> us <GB/s> GB/s,
read <us> us <GB/s> GB/s'. Usage: python3 bench/copy-mmvq.py SUITE.yaml"""
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
    words = (total + 3) // 4
    bufs = max(2, -(-(512 << 20) // (4 * words)))
    w = [torch.randint(0, 1 << 20, (words,), dtype=torch.int32, device='cuda') for _ in range(bufs)]
    out = [None] * bufs

    def reads():
        for i, x in enumerate(w):
            out[i] = x.sum()
    ru = timed(reads, bufs)
    del w, out
    print('mmvq-roof %s %s bytes %d: copy-same %.2f us %.0f GB/s, read %.2f us %.0f GB/s' % (
        model, layer, total, cu, 2 * half / cu / 1e3, ru, 4 * words / ru / 1e3), flush=True)
