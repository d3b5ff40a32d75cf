"""cuBLAS (torch.nn.functional.linear) and copy/read bandwidth for the same
cases `gen bench` times, in the same GPU-machine run. Weights rotate across
buffers (>= 512 MiB per case) like gen bench; median of CUDA-event timings.

Each case is timed two ways, both recorded in its result:
- eager: a Python loop launches F.linear once per weight copy between two
  CUDA events (host launch gaps included);
- graph: the same loop (same weights, same order) is captured once in a
  torch.cuda.CUDAGraph and each replay is timed between two CUDA events, the
  way serving engines run decode (gen bench --launch graph times kgen so).
Per result, `us`/`gbps` stay the eager numbers (what older files hold and
cmd/benchreport reads); `eager_us`, `graph_us` and `graph_gbps` name the
timing. All are per launch (a loop's or replay's time over the copies).

`reads` (when a fourth argument names quantized weight formats, e.g.
q4_k,q6_k,q8_0): per shape and format, a read of exactly that format's
weight bytes (torch sum over them as f32 words), rotated and graph-timed
like the weights: the time any kernel that reads those bytes once takes in
this call, a yardstick beside the 4 GiB copy bandwidth at the shape's size.
Each read also has `copy_us`/`copy_gbps`: a device-to-device copy of the
same bytes (half read, half written), rotated and graph-timed the same way.
A layer of 20-75 MB cannot fill the pipe as the 4 GiB copy does: the copy
of its own bytes is the roof such a layer can reach (torch's sum, slower
than kgen's GEMV there, is not one).

`floor` is the cheapest launch there is, a 1-element in-place add, timed the
same ways: alone (`graph_us`, `eager_us`: one launch between the events) and
as 64 launches in a row, per launch (`graph_node_us`, `eager_node_us`: what
one more kernel in a captured sequence costs)."""
import json, sys
import torch
import torch.nn.functional as F
import re


def load_suite(path):
    """decode-shapes.yaml; PyYAML when present, else this file's simple shape."""
    try:
        import yaml
        return yaml.safe_load(open(path))
    except ImportError:
        pass
    suite, section, model = {"models": {}}, None, None
    for line in open(path):
        line = line.split("#")[0].rstrip()
        if not line.strip():
            continue
        if m := re.match(r"tokens:\s*\[(.*)\]", line):
            suite["tokens"] = [int(t) for t in m.group(1).split(",")]
        elif re.match(r"^\w", line):
            section = line.split(":")[0]
        elif section == "models" and (m := re.match(r"^  ([\w.-]+):\s*$", line)):
            model = m.group(1)
            suite["models"][model] = {}
        elif section == "models" and (m := re.match(r"^\s+(\w+):\s*\{n:\s*(\d+),\s*k:\s*(\d+)\}", line)):
            suite["models"][model][m.group(1)] = {"n": int(m.group(2)), "k": int(m.group(3))}
    return suite


suite = load_suite(sys.argv[1])
out = sys.argv[2]
dtypes = sys.argv[3].split(",")
dev = torch.device("cuda")
tmap = {"bf16": torch.bfloat16, "f16": torch.float16}

def median_us(fn, reps=20, per=1):
    for _ in range(3):
        fn()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize()
        ts.append(a.elapsed_time(b) * 1e3 / per)
    ts.sort()
    return ts[len(ts) // 2]


def graph_us(fn, reps=20, per=1):
    """Capture one call of fn in a CUDA graph and time its replays like
    median_us times fn (3 warm-up replays, median of reps, over per)."""
    # Warm up on a side stream before capturing, as torch.cuda.graph's
    # documentation asks: cuBLAS picks its kernels and workspace and the
    # caching allocator its blocks outside the capture.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    try:
        return median_us(g.replay, reps=reps, per=per)
    finally:
        # The graph holds its own outputs (its memory pool): drop it before
        # the weights it read go.
        del g

# Copy bandwidth (read + write counted) and read-only bandwidth, 4 GiB.
src = torch.randn(1 << 30, device=dev)  # 4 GiB f32
dst = torch.empty_like(src)
copy_us = median_us(lambda: dst.copy_(src), reps=10)
copy_gbps = 2 * src.numel() * 4 / copy_us / 1e3
read_us = median_us(lambda: src.sum(), reps=10)
read_gbps = src.numel() * 4 / read_us / 1e3
del src, dst

# The floor: the cheapest kernel launch, alone and 64 in a row.
one = torch.randn(1, device=dev)
def tiny():
    one.add_(1)
def tiny64():
    for _ in range(64):
        one.add_(1)
floor = dict(kernel="1-element in-place add (torch.Tensor.add_)",
             graph_us=graph_us(tiny, reps=200), eager_us=median_us(tiny, reps=200),
             graph_node_us=graph_us(tiny64, reps=50, per=64), eager_node_us=median_us(tiny64, reps=50, per=64))
del one
print(f"floor: graph {floor['graph_us']:.2f} us alone, {floor['graph_node_us']:.2f} us per launch of 64; "
      f"eager {floor['eager_us']:.2f} us, {floor['eager_node_us']:.2f} us", flush=True)
res = []
for model, layers in sorted(suite["models"].items()):
    for layer, sh in sorted(layers.items()):
        n, k = sh["n"], sh["k"]
        for d in dtypes:
            if d not in tmap:
                continue
            wbytes = n * k * 2
            rot = max(1, min(64, -(-(512 << 20) // wbytes)))
            ws = [torch.randn(n, k, device=dev).to(tmap[d]) for _ in range(rot)]
            for m in suite["tokens"]:
                x = torch.randn(m, k, device=dev).to(tmap[d])
                def run():
                    for w in ws:
                        F.linear(x, w)
                us = median_us(run, per=rot)
                gus = graph_us(run, per=rot)
                by = wbytes + m * k * 2 + m * n * 2
                res.append(dict(model=model, layer=layer, n=n, k=k, m=m, dtype=d, us=us, gbps=by / us / 1e3,
                                eager_us=us, graph_us=gus, graph_gbps=by / gus / 1e3, rotated=rot))
                print(f"{model:12s} {layer:8s} {n:6d}x{k:<6d} m={m} {d:5s} cuBLAS eager {us:8.1f} us {by/us/1e3:6.0f} GB/s"
                      f" graph {gus:8.1f} us {by/gus/1e3:6.0f} GB/s", flush=True)
            del ws
            torch.cuda.empty_cache()
# Same-size reads: (weights per block, bytes per block) of each format.
blocks = {"q4_k": (256, 144), "q6_k": (256, 210), "q8_0": (32, 34)}
reads = []
for f in (sys.argv[4].split(",") if len(sys.argv) > 4 else []):
    for model, layers in sorted(suite["models"].items()):
        for layer, sh in sorted(layers.items()):
            n, k = sh["n"], sh["k"]
            wbytes = n * (k // blocks[f][0]) * blocks[f][1]
            rot = max(1, min(64, -(-(512 << 20) // wbytes)))
            bufs = [torch.rand(wbytes // 4, device=dev) for _ in range(rot)]
            def run():
                for b in bufs:
                    b.sum()
            gus = graph_us(run, per=rot)
            del bufs
            half = (wbytes // 2 + 15) // 16 * 16
            pairs = max(2, -(-(512 << 20) // (2 * half)))
            srcs = [torch.empty(half, dtype=torch.uint8, device=dev).random_() for _ in range(pairs)]
            dsts = [torch.empty_like(x) for x in srcs]
            def copy():
                for d, x in zip(dsts, srcs):
                    d.copy_(x)
            cus = graph_us(copy, per=pairs)
            del srcs, dsts
            reads.append(dict(model=model, layer=layer, n=n, k=k, dtype=f, bytes=wbytes, graph_us=gus, graph_gbps=wbytes / gus / 1e3,
                              copy_us=cus, copy_gbps=2 * half / cus / 1e3))
            print(f"{model:12s} {layer:8s} {n:6d}x{k:<6d} {f:5s} read of {wbytes} B: graph {gus:8.1f} us {wbytes/gus/1e3:6.0f} GB/s;"
                  f" copy of the same bytes {cus:8.2f} us {2*half/cus/1e3:6.0f} GB/s", flush=True)
            torch.cuda.empty_cache()
json.dump(dict(device=torch.cuda.get_device_name(), torch=torch.__version__, copy_gbps=copy_gbps, read_gbps=read_gbps,
               launch=["eager", "graph"], floor=floor, results=res, reads=reads), open(out, "w"), indent=1)
print(f"copy {copy_gbps:.0f} GB/s, read {read_gbps:.0f} GB/s")
