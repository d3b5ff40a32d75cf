"""Copy bandwidth the quantizer runs divide by: a 4 GiB f32 device-to-device
copy (torch), read + write counted, median of 10 event-timed copies after 3
warm-ups (bench/cublas.py measures the same inside the cuBLAS run).
Prints one line: 'copy N GB/s (...)', which benchreport -quant-run reads."""
import torch

src = torch.randn(1 << 30, device='cuda'); dst = torch.empty_like(src)
for _ in range(3): dst.copy_(src)
ts = []
for _ in range(10):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record(); dst.copy_(src); b.record(); torch.cuda.synchronize(); ts.append(a.elapsed_time(b) * 1000)
us = sorted(ts)[len(ts) // 2]
print('copy %.0f GB/s (4 GiB f32, read + write, median of 10)' % (2 * src.numel() * 4 / us / 1e3))
