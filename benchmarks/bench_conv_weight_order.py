"""Conv2DNCHWc's reduction order per layer shape, weights cold: each window conv (bias + ReLU
epilogue) built with the block's channels inside the window (rco, ry, rx, rci) and outside it
(rco, rci, ry, rx), timed alone in the calling thread's CPU time with its weights rotated over
copies past 8x L2 (as a model reads each layer's weights once per run), variants interleaved.

Run: python benchmarks/bench_conv_weight_order.py [--rounds 7] [--hot]
(1 thread; prints per shape the median outside / inside ratio of the rounds, with their range)
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from common import build_with_random_args, set_threads

# (label, in channels, out channels, input size, kernel, stride): ResNet-50's 3x3 layers,
# Inception v1's 3x3 / 5x5 and DenseNet-121's 3x3 growth convs
SHAPES = [
    ("resnet 64 56x56", 64, 64, 56, 3, 1), ("resnet 128 56x56/s2", 128, 128, 56, 3, 2),
    ("resnet 128 28x28", 128, 128, 28, 3, 1), ("resnet 256 28x28/s2", 256, 256, 28, 3, 2),
    ("resnet 256 14x14", 256, 256, 14, 3, 1), ("resnet 512 14x14/s2", 512, 512, 14, 3, 2),
    ("resnet 512 7x7", 512, 512, 7, 3, 1), ("inception 96->128 28x28", 96, 128, 28, 3, 1),
    ("inception 16->32 5x5 28x28", 16, 32, 28, 5, 1), ("inception 160->320 7x7", 160, 320, 7, 3, 1),
    ("densenet 128->32 56x56", 128, 32, 56, 3, 1), ("densenet 128->32 7x7", 128, 32, 7, 3, 1),
]


def _kernel(c, f, hw, k, stride, outside: bool):
    from ember import te, topi
    from ember.dlight import cpu
    from ember.dlight.cpu.common import lanes_for
    from ember.target import Target

    target = Target("llvm")
    b = lanes_for(target, 32)
    x_t = te.placeholder((1, c // b, hw, hw, b), name="X")
    w_t = te.placeholder((f // b, c, k, k, b), name="W")
    bias_t = te.placeholder((1, f // b, 1, 1, b), name="Bias")
    conv = topi.nn.conv2d_nchwc(x_t, w_t, (stride, stride), (k // 2,) * 4, (1, 1), "float32")
    y_t = topi.nn.relu(topi.add(conv, bias_t))
    saved = cpu.Conv2DNCHWc.channels_outside_window
    cpu.Conv2DNCHWc.channels_outside_window = 99 if outside else 0
    try:
        sch = cpu.Conv2DNCHWc().apply(te.create_prim_func([x_t, w_t, bias_t, y_t]), target, False)
    finally:
        cpu.Conv2DNCHWc.channels_outside_window = saved
    return build_with_random_args(sch.mod, (x_t, w_t, bias_t, y_t))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=16, help="calls per round and variant")
    parser.add_argument("--hot", action="store_true", help="the same weights every call")
    args = parser.parse_args()
    set_threads(1)
    import profile_kernels as pk

    print(f"1 thread, thread CPU time, weights {'hot' if args.hot else 'cold'}; outside / inside, "
          f"median of {args.rounds} rounds (range)")
    print("| layer | inside us | outside us | outside / inside |")
    print("|---|---|---|---|")
    for label, c, f, hw, k, stride in SHAPES:
        runs = {}
        for outside in (False, True):
            mod, arrays = _kernel(c, f, hw, k, stride, outside)
            sets = [arrays] if args.hot else pk.cold_weight_sets(arrays, {1})
            runs[outside] = (mod, sets)
        for mod, sets in runs.values():
            mod(*sets[0])
        np.testing.assert_allclose(runs[True][1][0][3].numpy(), runs[False][1][0][3].numpy(), rtol=1e-4, atol=1e-3)
        times = {False: [], True: []}
        for _ in range(args.rounds):
            for outside, (mod, sets) in runs.items():
                start = time.thread_time()
                for i in range(args.calls):
                    mod(*sets[i % len(sets)])
                times[outside].append((time.thread_time() - start) / args.calls)
        ratios = sorted(o / i for o, i in zip(times[True], times[False]))
        print(f"| {label} | {statistics.median(times[False]) * 1e6:.0f} | {statistics.median(times[True]) * 1e6:.0f} | "
              f"{statistics.median(ratios):.3f} ({ratios[0]:.2f}–{ratios[-1]:.2f}) |", flush=True)


if __name__ == "__main__":
    main()
