"""ResNet-50's 3x3 convolutions (bias + ReLU epilogue) under ``Conv2DNCHWc`` variants, at a
given thread count, weights cold: each layer built once per variant, the variants' calls
interleaved in rounds (wall clock, all in ember's one OpenMP team), each variant checked
against the first.  Prints per layer the median time of the first variant and every other
variant's per-round ratio to it (median, range), then the ratio of the sums weighted by how
often ResNet-50 calls each layer.

A variant is ``label:Attr=value,...`` setting ``Conv2DNCHWc`` attributes, plus ``tile=FRxXR``
(the register tile: output channel blocks × pixels) or ``tile=FRxXR@HW`` (only for layers of
output width HW), plus ``threads=N`` (the same kernel run on N threads).  Run:
python benchmarks/bench_conv3x3_threads.py --threads 2 --variant "now:" --variant "unrolled:unroll_window=1"
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

from common import build_with_random_args, set_threads  # noqa: E402

# (label, channels, input size, stride, calls per ResNet-50 run)
LAYERS = [
    ("64 56x56", 64, 56, 1, 3), ("128 56x56/s2", 128, 56, 2, 1), ("128 28x28", 128, 28, 1, 3),
    ("256 28x28/s2", 256, 28, 2, 1), ("256 14x14", 256, 14, 1, 5), ("512 14x14/s2", 512, 14, 2, 1),
    ("512 7x7", 512, 7, 1, 2),
]


def _parse(text: str):
    label, _, body = text.partition(":")
    attrs, tiles = {}, {}
    for item in filter(None, body.split(",")):
        key, _, value = item.partition("=")
        if key == "threads":
            tiles["threads"] = int(value)
        elif key == "tile":
            tile, _, width = value.partition("@")
            fr, xr = (int(v) for v in tile.split("x"))
            tiles[int(width) if width else None] = (fr, xr)
        else:
            attrs[key] = int(value)
    return label, attrs, tiles


def _kernel(c, hw, stride, attrs, tiles):
    from ember import te, topi
    from ember.dlight import cpu
    from ember.dlight.cpu import conv2d_nchwc
    from ember.dlight.cpu.common import lanes_for
    from ember.target import Target

    target = Target("llvm")
    b = lanes_for(target, 32)
    x_t = te.placeholder((1, c // b, hw, hw, b), name="X")
    w_t = te.placeholder((c // b, c, 3, 3, b), name="W")
    bias_t = te.placeholder((1, c // b, 1, 1, b), name="Bias")
    conv = topi.nn.conv2d_nchwc(x_t, w_t, (stride, stride), (1, 1, 1, 1), (1, 1), "float32")
    y_t = topi.nn.relu(topi.add(conv, bias_t))
    width = hw // stride
    rule = cpu.Conv2DNCHWc()
    for key, value in attrs.items():
        setattr(rule, key, value)
    original = conv2d_nchwc._tile
    tile = tiles.get(width, tiles.get(None)) if width in tiles or None in tiles else None
    if tile is not None:
        conv2d_nchwc._tile = lambda *a, **k: tile
    try:
        sch = rule.apply(te.create_prim_func([x_t, w_t, bias_t, y_t]), target, False)
    finally:
        conv2d_nchwc._tile = original
    return build_with_random_args(sch.mod, (x_t, w_t, bias_t, y_t))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--calls", type=int, default=16, help="calls per round and variant")
    parser.add_argument("--variant", action="append", required=True)
    parser.add_argument("--clock", choices=("wall", "thread", "process"), default="wall",
                        help="thread: the calling thread's CPU time (1 thread); process: all threads' CPU time")
    parser.add_argument("--hot", action="store_true", help="the same weights every call")
    parser.add_argument("--layers", default="", help="comma list of layer labels (default: all)")
    args = parser.parse_args()
    set_threads(args.threads)
    import profile_kernels as pk
    from ember.runtime.threading import set_num_threads

    clock = {"wall": time.perf_counter, "thread": time.thread_time, "process": time.process_time}[args.clock]
    variants = [_parse(v) for v in args.variant]
    wanted = set(filter(None, args.layers.split(",")))
    print(f"{args.threads} thread(s), {args.clock} clock, weights {'hot' if args.hot else 'cold'}, {args.rounds} rounds; "
          f"variant / {variants[0][0]} per round, median (range)")
    labels = [v[0] for v in variants]
    print("| layer | " + f"{labels[0]} us | " + " | ".join(labels[1:]) + " |")
    print("|---|---|" + "---|" * (len(labels) - 1))
    totals = [[0.0] * args.rounds for _ in variants]
    for label, c, hw, stride, calls in LAYERS:
        if wanted and label not in wanted:
            continue
        runs = []
        for _, attrs, tiles in variants:
            mod, arrays = _kernel(c, hw, stride, attrs, tiles)
            runs.append((mod, [arrays] if args.hot else pk.cold_weight_sets(arrays, {1}),
                         tiles.get("threads", args.threads)))
        for mod, sets, _ in runs:
            mod(*sets[0])
        for _, sets, _ in runs[1:]:
            np.testing.assert_allclose(sets[0][3].numpy(), runs[0][1][0][3].numpy(), rtol=1e-4, atol=1e-3)
        times = [[] for _ in runs]
        for r in range(args.rounds):
            for k, (mod, sets, threads) in enumerate(runs):
                set_num_threads(threads)
                start = clock()
                for i in range(args.calls):
                    mod(*sets[i % len(sets)])
                t = (clock() - start) / args.calls
                times[k].append(t)
                totals[k][r] += t * calls
        cells = [f"{statistics.median(times[0]) * 1e6:.0f}"]
        for t in times[1:]:
            ratios = sorted(a / b for a, b in zip(t, times[0]))
            cells.append(f"{statistics.median(ratios):.3f} ({ratios[0]:.2f}–{ratios[-1]:.2f})")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    cells = [f"{statistics.median(totals[0]) * 1e6:.0f}"]
    for t in totals[1:]:
        ratios = sorted(a / b for a, b in zip(t, totals[0]))
        cells.append(f"{statistics.median(ratios):.3f} ({ratios[0]:.2f}–{ratios[-1]:.2f})")
    print("| weighted sum | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
