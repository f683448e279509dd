"""Checks for schedule tests: ``verify_trace_roundtrip`` replays a schedule's trace from
its JSON form and from its printed Python on the original module and demands the same
IR; ``assert_structural_equal_ignore_global_symbol`` compares functions whatever their
``global_symbol`` attributes say (TVM's ``tir.schedule.testing`` names)."""

from __future__ import annotations

import json

from ember.ir import IRModule, assert_structural_equal

from ..function import PrimFunc
from .schedule import Schedule
from .trace import Trace

__all__ = ["verify_trace_roundtrip", "assert_structural_equal_ignore_global_symbol"]


def verify_trace_roundtrip(sch: Schedule, mod, *, debug_mask="all", text_format=("python", "json")) -> Schedule:
    """Replay ``sch.trace`` on ``mod`` in each of ``text_format`` ("json", "python") and
    check every replay gives ``sch.mod``; returns the last replayed schedule."""
    formats = (text_format,) if isinstance(text_format, str) else tuple(text_format)
    unknown = set(formats) - {"json", "python"}
    if unknown:
        raise ValueError(f"verify_trace_roundtrip: text_format must be 'json' and/or 'python', got {sorted(unknown)}")
    if isinstance(mod, PrimFunc):
        mod = IRModule({"main": mod})
    replayed = None
    for fmt in formats:
        replayed = Schedule(mod, debug_mask=debug_mask)
        if fmt == "json":
            trace = Trace.from_json(json.loads(json.dumps(sch.trace.as_json())))
            trace.apply_to_schedule(replayed, remove_postproc=False)
        else:
            import ember

            scope = {"tir": ember.tir, "T": ember.tir}
            exec(str(sch.trace), scope)  # noqa: S102 - a trace prints as runnable Python
            scope["apply_trace"](replayed)
        assert_structural_equal(replayed.mod, sch.mod)
    return replayed


def _without_symbol(func):
    if isinstance(func, PrimFunc) and "global_symbol" in func.attrs:
        return func.without_attr("global_symbol")
    return func


def assert_structural_equal_ignore_global_symbol(func1, func2, *args, **kwargs) -> None:
    """``assert_structural_equal`` of two PrimFuncs, ignoring their ``global_symbol``."""
    assert_structural_equal(_without_symbol(func1), _without_symbol(func2), *args, **kwargs)
