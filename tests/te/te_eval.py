"""Test helper: lower te tensors with create_prim_func and run them (interpreter or llvm)."""

from __future__ import annotations

import numpy as np

from ember import te
from ember.tir import interpreter


def _shape(t, sizes: dict) -> tuple:
    out = []
    for d in t.shape:
        out.append(int(d.value) if hasattr(d, "value") else sizes[d.name])
    return tuple(out)


def evaluate(inputs, outputs, arrays, backend: str = "interp", **scalars):
    """Values of ``outputs`` for numpy ``arrays`` bound to ``inputs``."""
    single = not isinstance(outputs, list | tuple)
    outputs = [outputs] if single else list(outputs)
    func = te.create_prim_func([*inputs, *outputs])
    sizes = dict(scalars)
    for t, a in zip(inputs, arrays):
        for d, n in zip(t.shape, a.shape):
            if not hasattr(d, "value"):
                sizes.setdefault(d.name, n)
    outs = [np.zeros(_shape(o, sizes), dtype=o.dtype.numpy()) for o in outputs]
    if backend == "interp":
        interpreter.run(func, *arrays, *outs, **scalars)
    else:
        import ember

        mod = ember.build(func, target="llvm")
        mod(*arrays, *outs, *scalars.values())
    return outs[0] if single else outs
