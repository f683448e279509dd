"""Small helpers shared by MetaSchedule's parts: module normalisation, stable structural
keys, time budgets ("10m"), and the function (block) facts the rules and postprocs use."""

from __future__ import annotations

import hashlib
import re

from ember.ir import IRModule
from ember.target import Target
from ember.tir import PrimFunc

_TIME = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|hr)?\s*$")
_UNIT = {None: 1, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600}


def normalize_mod(mod, arg: str = "mod") -> IRModule:
    """A PrimFunc becomes ``IRModule({"main": func})``; an IRModule is returned as is."""
    if isinstance(mod, PrimFunc):
        return IRModule({"main": mod})
    if isinstance(mod, IRModule):
        return mod
    raise TypeError(f"{arg} must be a PrimFunc or an IRModule, got {type(mod).__name__}")


def normalize_target(target, arg: str = "target") -> Target:
    if isinstance(target, Target):
        return target
    if isinstance(target, str):
        return Target(target)
    raise TypeError(f"{arg} must be a Target or a target string such as 'llvm', got {type(target).__name__}")


def parse_time(value, arg: str = "max_time") -> float | None:
    """Seconds from ``None``, a number of seconds, or a string such as "90s", "10m", "1.5h"."""
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value <= 0:
            raise ValueError(f"{arg} must be positive, got {value}")
        return float(value)
    if isinstance(value, str):
        m = _TIME.match(value)
        if m and float(m.group(1)) > 0:
            return float(m.group(1)) * _UNIT[m.group(2)]
    raise ValueError(f"{arg} must be seconds or a string like '30s', '10m', '1h', got {value!r}")


def mod_key(mod: IRModule) -> str:
    """A hash of a module's printed form, stable across processes (unlike ``structural_hash``,
    which uses Python's per-process string hashing)."""
    return str(int(hashlib.sha256(mod.script().encode()).hexdigest()[:15], 16))


def prim_func_of(mod: IRModule) -> tuple[str, PrimFunc]:
    """The single PrimFunc of ``mod`` (tuning works on one kernel at a time)."""
    funcs = [(gv.name_hint, f) for gv, f in mod.functions.items() if isinstance(f, PrimFunc)]
    if len(funcs) != 1:
        raise ValueError(f"expected an IRModule with exactly one PrimFunc, got {len(funcs)} "
                         f"({', '.join(n for n, _ in funcs)})")
    return funcs[0]


def cpu_count(num_threads="physical") -> int:
    import os

    if isinstance(num_threads, int):
        return max(1, num_threads)
    return max(1, os.cpu_count() or 1)


def derived_object(cls):
    """TVM's decorator for Python subclasses of MetaSchedule interfaces; a no-op in ember
    (its interfaces are plain Python protocols)."""
    return cls
