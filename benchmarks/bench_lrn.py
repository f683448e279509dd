"""Inception v1 with ember's LRN written two ways, next to ONNX Runtime, in one process.

- ``slices``: the importer's LRN before round 6 (x², channel pad, ``size`` strided slices
  summed, scale, pow, divide as Relax ops; FuseOps makes one kernel that reads the window of
  the channel-blocked activations through NCHW16c ↔ NCHW index arithmetic);
- ``kernel``: today's importer (one ``topi.nn.lrn_channels`` call marked ``ember.lrn``, which
  the layout pass turns into the scheduled ``lrn_nchwc`` on blocked activations).

Both builds are checked against ONNX Runtime first; the runtimes take turns, each figure is
the median over rounds with the per-round range of the ratios.  Also times the LRN kernels
alone (``--kernels``).

Run: python benchmarks/bench_lrn.py [--model inception_v1] [--threads 1] [--repeats 9]
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

from common import set_threads, vm_call

import bench_model_zoo as zoo


def slices_lrn(ctx, node, inputs, attrs):
    """The pre-round-6 converter: Relax ops only."""
    from ember.relax import op as R
    from ember.relax.frontend.onnx.common import ndim_of, shape_of
    from ember.relax.frontend.onnx.ops_elementwise import scalar

    x = inputs[0]
    size = attrs["size"]
    alpha, beta, bias = attrs.get("alpha", 1e-4), attrs.get("beta", 0.75), attrs.get("bias", 1.0)
    channels = shape_of(x)[1]
    before, after = (size - 1) // 2, -(-(size - 1) // 2)
    sq = ctx.emit(R.multiply(x, x))
    pad = [(0, 0)] * ndim_of(x)
    pad[1] = (before, after)
    padded = ctx.emit(R.nn.pad(sq, [p for pair in pad for p in pair]))
    total = None
    for i in range(size):
        part = ctx.emit(R.strided_slice(padded, [1], [i], [i + channels]))
        total = part if total is None else ctx.emit(R.add(total, part))
    denom = ctx.emit(R.add(R.multiply(total, scalar(x, alpha / size)), scalar(x, bias)))
    return R.divide(x, ctx.emit(R.power(denom, scalar(x, beta))))


def build(w, variant: str):
    import onnx

    from ember import relax
    from ember.relax.frontend.onnx import registry
    from ember.relax.frontend.onnx import from_onnx

    registry.load_converters()
    entries = registry.CONVERTERS[("", "LRN")]
    saved = list(entries)
    if variant == "slices":
        entries[:] = [(since, slices_lrn) for since, _ in entries]
    try:
        mod = from_onnx(onnx.load_from_string(w.onnx_bytes))
    finally:
        entries[:] = saved
    return relax.build(mod, "llvm")


def _first(out):
    while isinstance(out, list | tuple) or type(out).__name__ in ("Array", "Tuple"):
        out = out[0]
    return out.numpy() if hasattr(out, "numpy") else np.asarray(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="inception_v1")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--min-seconds", type=float, default=1.0, help="per runtime per round")
    args = parser.parse_args()
    set_threads(args.threads)
    import time

    from bench_models import _ort

    w = zoo.workload(args.model, 1)
    fns = {"ort": _ort(w, args.threads)}
    ref = _first(fns["ort"]())
    for variant in ("slices", "kernel"):
        fn = vm_call(build(w, variant), w.inputs)
        got = _first(fn())
        err = float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-30))
        print(f"{variant}: max |ember - ort| / max |ort| = {err:.2e}")
        assert err < 1e-3, variant
        fns[variant] = fn
    number = {}
    for name, fn in fns.items():
        start = time.perf_counter()
        fn()
        number[name] = max(1, int(args.min_seconds / max(time.perf_counter() - start, 1e-6)))
    samples = {name: [] for name in fns}
    for _ in range(args.repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            for _ in range(number[name]):
                fn()
            samples[name].append((time.perf_counter() - start) / number[name])
    med = {k: statistics.median(v) * 1e3 for k, v in samples.items()}
    print(f"{args.model}, {args.threads} thread(s), median of {args.repeats} rounds (ms): "
          + ", ".join(f"{k} {v:.2f}" for k, v in med.items()))

    def ratio(a, b):
        r = [x / y for x, y in zip(samples[a], samples[b])]
        return f"{statistics.median(r):.2f} ({min(r):.2f}-{max(r):.2f})"

    print(f"kernel / slices: {ratio('kernel', 'slices')}")
    print(f"slices / ort: {ratio('slices', 'ort')}; kernel / ort: {ratio('kernel', 'ort')}")


if __name__ == "__main__":
    main()
