"""Test helpers: run a PrimFunc on random inputs and compare two functions numerically."""

from __future__ import annotations

import numpy as np

try:  # the project interpreter when it exists, else the small one here
    from ember.tir.interpreter import run as _run
except ImportError:  # pragma: no cover - depends on another layer's progress
    from sched_interp import run as _run


def random_args(func, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for p in func.params:
        buf = func.buffer_map[p]
        shape = [int(s.value) for s in buf.shape]
        out.append(rng.standard_normal(shape).astype(str(buf.dtype)))
    return out


def outputs(func, seed=0):
    args = random_args(func, seed)
    _run(func, *args)
    return args


def assert_same_numerics(f1, f2, seed=0):
    a, b = outputs(f1, seed), outputs(f2, seed)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-5)
