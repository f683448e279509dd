"""Fuzz schedules: random primitive sequences on random TE programs.

A case builds a random TE program (elementwise chains, broadcasts, reductions, matmuls,
with random small shapes), then applies 1–6 random primitives drawn by the step of the
hypothesis property test (``tests/tir/schedule/test_schedule_property._step``, driven here
by a seeded RNG instead of hypothesis).  A refused primitive (``ScheduleError``) is fine.
Every accepted schedule must compute what the original computes (reference TIR
interpreter), its trace must replay — from JSON and from its printed Python — to the same
program, its TVMScript must parse back to the same function, and the LLVM build must agree
with the interpreter.
"""

from __future__ import annotations

import os
import random
import sys

import numpy as np

import ember
from ember import te, tir

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tir", "schedule"))

from sched_helpers import check_trace_roundtrip  # noqa: E402
from test_schedule_property import _step  # noqa: E402


class SeededData:
    """Stands in for hypothesis' ``st.data()``: draws sampled_from / integers / booleans
    from a seeded ``random.Random``."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def draw(self, strategy):
        inner = getattr(strategy, "wrapped_strategy", strategy)
        kind = type(inner).__name__
        if kind in ("SampledFromStrategy", "JustStrategy"):
            return self.rng.choice(list(inner.elements))
        if kind == "IntegersStrategy":
            return self.rng.randint(inner.start, inner.end)
        if kind == "BooleansStrategy":
            return self.rng.random() < 0.5
        raise TypeError(f"SeededData cannot draw from {kind}")


def random_program(rng: random.Random, index_dtype: str = "int32"):
    """A small random TE program as a PrimFunc; ``index_dtype`` "int64" gives its inputs
    int64 shapes (the stages it computes on them keep int32 iterators: mixed index types)."""
    dim = lambda: rng.randint(1, 9)  # noqa: E731
    wide = (lambda shape: tuple(tir.IntImm("int64", d) for d in shape)) if index_dtype == "int64" else tuple
    kind = rng.choice(["chain", "reduce", "matmul", "broadcast", "reduce_then_ew"])
    dtype = rng.choice(["float32", "float32", "float64"])
    if kind == "matmul":
        n, m, k = dim(), dim(), dim()
        A = te.placeholder(wide((n, k)), dtype, name="A")
        B = te.placeholder(wide((k, m)), dtype, name="B")
        r = te.reduce_axis((0, k), "k")
        C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
        if rng.random() < 0.5:
            C = te.compute((n, m), lambda i, j: te.max(C[i, j], te.const(0, dtype)), name="D")
        return te.create_prim_func([A, B, C])
    shape = tuple(dim() for _ in range(rng.randint(1, 3)))
    A = te.placeholder(wide(shape), dtype, name="A")
    if kind == "chain":
        out = A
        for s in range(rng.randint(1, 3)):
            op = rng.choice([lambda v: v * 2, lambda v: v + 1, lambda v: te.max(v, te.const(0, dtype)),
                             lambda v: v * v])
            out = te.compute(shape, lambda *i, src=out, op=op: op(src(*i)), name=f"S{s}")
        return te.create_prim_func([A, out])
    if kind == "broadcast":
        Bv = te.placeholder(wide(shape[-1:]), dtype, name="B")
        C = te.compute(shape, lambda *i: A(*i) + Bv[i[-1]], name="C")
        return te.create_prim_func([A, Bv, C])
    axis = rng.randrange(len(shape))
    r = te.reduce_axis((0, shape[axis]), "r")
    out_shape = shape[:axis] + shape[axis + 1:] or (1,)
    reducer = rng.choice([te.sum, te.max, te.min])

    def body(*i):
        idx = list(i[:axis]) + [r] + list(i[axis:]) if len(shape) > 1 else [r]
        return reducer(A(*idx), axis=r)

    R = te.compute(out_shape, body, name="R")
    if kind == "reduce_then_ew":
        R = te.compute(out_shape, lambda *i: R(*i) * 3, name="E")
    return te.create_prim_func([A, R])


def _args(func, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal([int(s) for s in func.buffer_map[p].shape]).astype(str(func.buffer_map[p].dtype))
            for p in func.params]


def _interpret(func, seed):
    args = _args(func, seed)
    tir.interpreter.run(func, *args)
    return args


def run_case(seed: int) -> str | None:
    rng = random.Random(seed)
    original = random_program(rng, "int64" if seed % 3 == 2 else "int32")
    sch = tir.Schedule(original, seed=seed)
    data = SeededData(rng)
    for _ in range(rng.randint(1, 6)):
        try:
            _step(sch, data)
        except tir.ScheduleError:
            pass
    scheduled = sch.mod["main"]
    steps = str(sch.trace).strip().splitlines()
    what = f"trace:\n{chr(10).join(steps)}"
    expected = _interpret(original, seed)
    got = _interpret(scheduled, seed)
    for e, g in zip(expected, got):
        if not np.allclose(e, g, rtol=1e-5, atol=1e-5):
            return f"the schedule changed the result (interpreter)\n{what}"
    try:
        check_trace_roundtrip(sch, original)
    except Exception as err:  # noqa: BLE001
        return f"trace replay differs: {type(err).__name__}: {str(err)[:400]}\n{what}"
    from ember.script import from_source

    try:
        ember.ir.assert_structural_equal(from_source(scheduled.script()), scheduled)
    except Exception as err:  # noqa: BLE001
        return f"print -> parse differs: {type(err).__name__}: {str(err)[:400]}\n{what}"
    built = _args(scheduled, seed)
    ember.build(sch.mod, target="llvm")(*built)
    for e, g in zip(expected, built):
        if not np.allclose(e, g, rtol=1e-5, atol=1e-5):
            return f"the LLVM build disagrees with the interpreter\n{what}"
    return None
