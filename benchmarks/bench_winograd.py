"""ResNet-50's 3×3 stride-1 convolutions (bias + ReLU) as direct ``Conv2DNCHWc`` kernels vs
Winograd F(2,3) and F(4,3) (``relax.transform.WinogradConv2D``), through the CPU default
pipeline, weights cold (each variant holds enough copies of the layer, each with its own
weights, to exceed 2× L2, called in rotation), the variants' calls interleaved in rounds.
Each variant's output is checked against the direct one first.  Prints per layer the direct
time and each variant's per-round ratio to it (median, range), then the ratio of the sums
weighted by how often ResNet-50 calls each layer.

python benchmarks/bench_winograd.py --threads 2 --clock process
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

if "--clock" in sys.argv and sys.argv[sys.argv.index("--clock") + 1] == "process":
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # idle threads sleep: CPU time is work

from common import set_threads  # noqa: E402

# (label, channels, size, calls per ResNet-50 run)
LAYERS = [("64 56x56", 64, 56, 3), ("128 28x28", 128, 28, 3), ("256 14x14", 256, 14, 5), ("512 7x7", 512, 7, 2)]
COLD_BYTES = 4 << 20  # > 2x a 1-2 MB L2


def _module(c, hw, copies, rng):
    import ember as tvm  # noqa: F401
    from ember import relax

    bb = relax.BlockBuilder()
    for i in range(copies):
        x = relax.Var("x", relax.TensorStructInfo((1, c, hw, hw), "float32"))
        w = (rng.standard_normal((c, c, 3, 3)) * (2.0 / (9 * c)) ** 0.5).astype("float32")
        b = rng.standard_normal((1, c, 1, 1)).astype("float32")
        with bb.function(f"f{i}", [x]):
            with bb.dataflow():
                y = bb.emit(relax.op.nn.relu(relax.op.add(relax.op.nn.conv2d(x, relax.const(w), padding=1),
                                                          relax.const(b))))
                out = bb.emit_output(y)
            bb.emit_func_output(out)
    return bb.get()


def _build(mod, m):
    import ember as tvm
    from ember import relax
    from ember.relax.transform import winograd_conv2d as wc

    old = wc.default_choose_tile
    wc.default_choose_tile = lambda *shape: m
    try:
        with tvm.transform.PassContext(opt_level=3, config={"relax.transform.winograd_conv2d": m > 0}):
            ex = relax.build(relax.get_default_pipeline("llvm")(mod), "llvm")
    finally:
        wc.default_choose_tile = old
    return relax.VirtualMachine(ex, tvm.cpu())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--clock", choices=("wall", "process"), default="wall")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--tiles", default="0,2,4", help="m per variant, 0 = direct (first: the reference)")
    parser.add_argument("--layers", default="", help="comma-separated layer sizes to keep (56,28,14,7)")
    args = parser.parse_args()
    set_threads(args.threads)
    import ember as tvm

    clock = {"wall": time.perf_counter, "process": time.process_time}[args.clock]
    tiles = [int(t) for t in args.tiles.split(",")]
    keep = {int(s) for s in args.layers.split(",") if s}
    print(f"{args.threads} thread(s), {args.clock} clock, weights cold, {args.rounds} rounds x {args.calls} calls")
    totals = {m: [0.0] * args.rounds for m in tiles}
    for label, c, hw, weight_calls in LAYERS:
        if keep and hw not in keep:
            continue
        copies = max(2, -(-COLD_BYTES // (c * c * 9 * 4)))
        rng = np.random.default_rng(0)
        mod = _module(c, hw, copies, rng)
        vms = {m: _build(mod, m) for m in tiles}
        x = tvm.nd.array(rng.random((1, c, hw, hw)).astype("float32"))
        ref = vms[tiles[0]]["f0"](x).numpy()
        for m in tiles[1:]:
            got = vms[m]["f0"](x).numpy()
            err = np.abs(got - ref).max() / np.abs(ref).max()
            assert err < 1e-4, f"{label} m={m}: relative error {err:.2e}"
        fns = {m: [vms[m][f"f{i}"] for i in range(copies)] for m in tiles}
        times = {m: [] for m in tiles}
        for r in range(args.rounds):
            for m in tiles:
                start = clock()
                for k in range(args.calls):
                    fns[m][k % copies](x)
                t = (clock() - start) / args.calls
                times[m].append(t)
                totals[m][r] += t * weight_calls
        base = times[tiles[0]]
        cells = [f"{label:>10}: m={tiles[0]} {statistics.median(base) * 1e3:7.3f} ms"]
        for m in tiles[1:]:
            ratios = [a / b for a, b in zip(times[m], base)]
            cells.append(f"m={m} {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})")
        print("  ".join(cells), flush=True)
    base = totals[tiles[0]]
    cells = [f"{'weighted':>10}: m={tiles[0]} {statistics.median(base) * 1e3:7.3f} ms"]
    for m in tiles[1:]:
        ratios = [a / b for a, b in zip(totals[m], base)]
        cells.append(f"m={m} {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})")
    print("  ".join(cells))


if __name__ == "__main__":
    main()
