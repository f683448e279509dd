"""Test helpers: run a PrimFunc on random inputs and compare two functions numerically."""

from __future__ import annotations

import numpy as np

import pytest

_run = pytest.importorskip("ember.tir.interpreter").run  # the reference interpreter (tir layer)


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


def check_trace_roundtrip(sch, original) -> None:
    """The trace replays (from JSON and from its printed Python) to the same module."""
    import json

    import ember
    from ember.ir import assert_structural_equal
    from ember.tir.schedule import Schedule, Trace

    replayed = Schedule(original)
    Trace.from_json(json.loads(json.dumps(sch.trace.as_json()))).apply_to_schedule(replayed)
    assert_structural_equal(replayed.mod, sch.mod)
    scope = {"tir": ember.tir, "T": ember.tir}
    exec(str(sch.trace), scope)  # noqa: S102 - the trace prints runnable Python
    again = Schedule(original)
    scope["apply_trace"](again)
    assert_structural_equal(again.mod, sch.mod)


def check(sch, original, expected=None) -> None:
    """Numerics unchanged, trace round trip, and (optionally) the expected IR."""
    from ember.ir import assert_structural_equal

    assert_same_numerics(original, sch.mod["main"])
    check_trace_roundtrip(sch, original)
    if expected is not None:
        assert_structural_equal(without_attrs(sch.mod["main"]), without_attrs(expected))


def loop_extents(sch, block) -> list[int]:
    """The constant extents of the loops above ``block`` (a BlockRV or a block name), outermost first."""
    return [int(sch.get(loop).extent) for loop in sch.get_loops(block)]


def without_attrs(func):
    from ember.ir import replace

    return replace(func, attrs={})
