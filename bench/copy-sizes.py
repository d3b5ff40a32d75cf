"""The copy floor of each 4096-row quantizer case, timed as the quantizer
bench times kernels (issue 12): for every (K, input bytes per element,
output bytes per 32 elements) a device-to-device copy moving the same bytes
(half read, half written: (input + output) / 2 each way), launched once per
buffer pair in one CUDA graph over pairs totalling >= 512 MiB (the L2 is 50
MB), the graph's time divided by the pairs; median of 10 replays after 3
warm-ups. Prints 'copy-same <family> <dtype> K <k>: <us> us, <GB/s> GB/s'
per case; the notes set each quantizer against it."""
import torch

ROWS = 4096
cases = []
for fam, out_per_32 in (("quant_q8_1", 36), ("quant_q8k", 292 / 8)):
    for dt, eb in (("f32", 4), ("f16", 2), ("bf16", 2)):
        for k in (4096, 14336):
            total = ROWS * k * eb + int(ROWS * k / 32 * out_per_32)
            cases.append((fam, dt, k, total))
for fam, dt, k, total in cases:
    half = (total // 2 + 15) // 16 * 16
    pairs = max(2, -(-(512 << 20) // (2 * half)))
    src = [torch.empty(half, dtype=torch.uint8, device='cuda').random_() for _ in range(pairs)]
    dst = [torch.empty(half, dtype=torch.uint8, device='cuda') for _ in range(pairs)]
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        for d, x in zip(dst, src): d.copy_(x)  # warm the copy path outside capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for d, x in zip(dst, src): d.copy_(x)
    for _ in range(3): g.replay()
    ts = []
    for _ in range(10):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); g.replay(); b.record(); torch.cuda.synchronize(); ts.append(a.elapsed_time(b) * 1000 / pairs)
    us = sorted(ts)[len(ts) // 2]
    print('copy-same %s %s K %d: %.2f us, %.0f GB/s' % (fam, dt, k, us, 2 * half / us / 1e3), flush=True)
    del src, dst, g
