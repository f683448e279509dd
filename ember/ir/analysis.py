"""Analyses of a whole IRModule (``tvm.ir.analysis``): ``collect_call_map``."""

from __future__ import annotations

from .module import GlobalVar
from .node import Node, fields_of

__all__ = ["collect_call_map"]


def _callees(func) -> list:
    found: dict[int, GlobalVar] = {}
    seen: set = set()
    stack = [func]
    while stack:
        x = stack.pop()
        if isinstance(x, GlobalVar):
            found.setdefault(id(x), x)
            continue
        if isinstance(x, Node):
            if id(x) in seen:
                continue
            seen.add(id(x))
            stack.extend(reversed([getattr(x, f) for f in fields_of(type(x))]))
        elif isinstance(x, tuple | list):
            stack.extend(reversed(x))
        elif isinstance(x, dict):
            stack.extend(reversed([v for kv in x.items() for v in kv]))
    return list(found.values())


def collect_call_map(mod) -> dict:
    """``{GlobalVar: [GlobalVar, …]}``: the module functions each function refers to
    (calls, or passes as a value), in the order they first appear."""
    from .module import IRModule

    if not isinstance(mod, IRModule):
        raise TypeError(f"collect_call_map: expected an IRModule, got {type(mod).__name__}")
    out = {}
    for gv, func in mod.functions.items():
        out[gv] = _callees(func)
    return out
