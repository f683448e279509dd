"""In-memory cache of a Relax build's compiled kernels, keyed by the kernels *before* scheduling.

``relax.build`` schedules (dlight defaults), lowers and compiles the PrimFuncs of a module
into one kernel Module.  The LLVM code generator already caches machine code, but its key
is the lowered, packed PrimFuncs, so a second build of the same model still schedules and
lowers every kernel.  This cache sits in front of all three steps: its key is the target,
whether default schedules apply, the thread count they plan for, the PassContext config
(``tir.disable_vectorize`` and the like change the code), the LLVM code generator's
settings (``codegen.settings_key``), the default CPU rules' settings
(``dlight.cpu.settings_key``) and every PrimFunc's name with its structural hash as ``relax.build``
hands it to the scheduler.  A hit is confirmed with structural equality, and the kernel
Module compiled the first time is reused as it is (kernels are read-only machine code; the
LLVM cache shares them the same way).

``EMBER_BUILD_CACHE=0`` turns it off (so does ``EMBER_VERIFY_IR=1``, which checks every
lowering step); ``clear()`` empties it; ``info()`` counts hits.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Any

from ember.ir import IRModule, structural_equal, structural_hash
from ember.tir import PrimFunc

__all__ = ["lookup", "store", "clear", "info", "enabled", "MAX_ENTRIES"]

MAX_ENTRIES = 64
_LOCK = threading.Lock()
# key → (the unscheduled PrimFuncs by name, the compiled kernel Module)
_ENTRIES: OrderedDict[tuple, tuple[dict[str, PrimFunc], Any]] = OrderedDict()
_STATS = {"hits": 0, "misses": 0}


def enabled() -> bool:
    return os.environ.get("EMBER_BUILD_CACHE", "1") not in ("0", "false", "off", "")


def _config_key() -> str | None:
    """The PassContext's config and opt level as text, or None when the context asks for
    per-pass work (instruments, IR dumps) that a cached build would skip."""
    from ember.transform import PassContext

    ctx = PassContext.current()
    if ctx.instruments or ctx.dump_ir():
        return None
    config = ctx.config or {}
    items = sorted((str(k), repr(v)) for k, v in config.items())
    return repr((ctx.opt_level, ctx.required_pass, ctx.disabled_pass, items))


def make_key(mod: IRModule, target, scheduled: bool) -> tuple | None:
    """The cache key of ``mod``'s PrimFuncs for ``target``, or None when it must not be cached."""
    if not enabled() or os.environ.get("EMBER_VERIFY_IR", "") not in ("", "0"):  # verifying: build it all again
        return None
    config = _config_key()
    if config is None:
        return None
    prims = sorted((gv.name_hint, f) for gv, f in mod.functions.items() if isinstance(f, PrimFunc))
    if not prims:
        return None
    from ember.codegen.llvm.codegen import settings_key  # code generator settings change the kernels
    from ember.dlight.cpu import settings_key as rule_settings  # rule settings change the schedules
    from ember.runtime.threading import get_num_threads  # default schedules plan for the thread count

    return (str(target), bool(scheduled), get_num_threads(), config, settings_key(),
            rule_settings() if scheduled else (),
            tuple((name, structural_hash(f)) for name, f in prims))


def lookup(key: tuple | None, mod: IRModule):
    """The kernel Module cached under ``key`` if ``mod``'s PrimFuncs equal the cached ones, else None."""
    if key is None:
        return None
    with _LOCK:
        hit = _ENTRIES.get(key)
        if hit is not None:
            _ENTRIES.move_to_end(key)
    if hit is None:
        _STATS["misses"] += 1
        return None
    funcs = {gv.name_hint: f for gv, f in mod.functions.items() if isinstance(f, PrimFunc)}
    cached, kernels = hit
    if funcs.keys() != cached.keys() or not all(structural_equal(funcs[n], cached[n]) for n in funcs):
        _STATS["misses"] += 1
        return None
    _STATS["hits"] += 1
    return kernels


def store(key: tuple | None, mod: IRModule, kernels) -> None:
    """Remember ``kernels`` (the compiled kernel Module of ``mod``) under ``key``."""
    if key is None or kernels is None:
        return
    funcs = {gv.name_hint: f for gv, f in mod.functions.items() if isinstance(f, PrimFunc)}
    with _LOCK:
        _ENTRIES[key] = (funcs, kernels)
        while len(_ENTRIES) > MAX_ENTRIES:
            _ENTRIES.popitem(last=False)


def clear() -> None:
    with _LOCK:
        _ENTRIES.clear()


def info() -> dict[str, int]:
    return {**_STATS, "entries": len(_ENTRIES)}
