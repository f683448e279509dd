"""Test helper: lower topi outputs with create_prim_func and run them on numpy inputs."""

from __future__ import annotations

import numpy as np

from ember import te
from ember.tir import interpreter


def evaluate(inputs, outputs, arrays, backend: str = "interp"):
    """Values of ``outputs`` (one tensor or a list) for ``arrays`` bound to ``inputs``."""
    single = not isinstance(outputs, list | tuple)
    outputs = [outputs] if single else list(outputs)
    func = te.create_prim_func([*inputs, *outputs])
    outs = [np.zeros(tuple(int(d) for d in o.shape), dtype=o.dtype.numpy()) for o in outputs]
    if backend == "interp":
        interpreter.run(func, *arrays, *outs)
    else:
        import ember

        ember.build(func, target="llvm")(*arrays, *outs)
    return outs[0] if single else outs


def rand(*shape, dtype="float32", low=-1.0, high=1.0, seed=0):
    rng = np.random.default_rng(seed + sum(shape))
    if np.dtype(dtype).kind in "iu":
        return rng.integers(int(low) if low > -1 else -20, int(high) if high > 1 else 20, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) > 0.5
    return rng.uniform(low, high, size=shape).astype(dtype)
