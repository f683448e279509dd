"""Module-level helper passes of TVM's ``tir.transform``: Apply, Filter, BindTarget,
AnnotateEntryFunc.

They change which PrimFuncs a module holds or which attributes those carry, never a
function body.  A function is *externally exposed* when it has a ``global_symbol``
(the parser gives one to every non-private ``@T.prim_func``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from ember.ir import IRModule
from ember.transform import Pass, module_pass, prim_func_pass

from ..function import PrimFunc

__all__ = ["Apply", "Filter", "BindTarget", "AnnotateEntryFunc", "is_externally_exposed",
           "target_without_host"]


def is_externally_exposed(func) -> bool:
    """True when ``func`` is callable from outside its module (it has a global symbol)."""
    return func.attrs.get("global_symbol") is not None


def Apply(ftransform: Callable[[PrimFunc], PrimFunc]) -> Pass:  # noqa: N802 - TVM's name
    """Apply ``ftransform(func) -> func`` to every PrimFunc of the module."""
    return prim_func_pass(lambda func, mod, ctx: ftransform(func), opt_level=0, name="tir.Apply")


def Filter(fcond: Callable[[PrimFunc], bool]) -> Pass:  # noqa: N802 - TVM's name
    """Keep only the PrimFuncs for which ``fcond(func)`` holds (other functions stay)."""
    return prim_func_pass(lambda func, mod, ctx: func if fcond(func) else None,
                          opt_level=0, name="tir.Filter")


def target_without_host(target):
    """A copy of ``target`` without its host part."""
    bare = copy.copy(target)
    bare.host = None
    return bare


def _bind_target(func: PrimFunc, target) -> PrimFunc:
    exposed = is_externally_exposed(func)
    host = getattr(target, "host", None)
    existing = func.attrs.get("target")
    if existing is not None:
        # keep the function's own target; only an exposed function gains the new host
        if host is None or not exposed:
            return func
        return func.with_attr("target", existing.with_host(host))
    if host is not None and not exposed:  # internal functions are never called from the host
        target = target_without_host(target)
    return func.with_attr("target", target)


def BindTarget(target) -> Pass:  # noqa: N802 - TVM's name
    """Annotate each PrimFunc without a ``target`` attribute with ``target``.

    The host part of ``target`` goes only to externally exposed functions (it describes how
    the host calls them); an existing annotation is kept, gaining the host when exposed.
    """
    from ember.target import Target

    target = target if isinstance(target, Target) else Target(target)
    return prim_func_pass(lambda func, mod, ctx: _bind_target(func, target), opt_level=0,
                          name="tir.BindTarget")


def _annotate_entry(mod: IRModule, _ctx) -> IRModule:
    prim_funcs = {gv: f for gv, f in mod.functions.items() if isinstance(f, PrimFunc)}
    if any(f.attrs.get("tir.is_entry_func") for f in prim_funcs.values()):
        return mod
    if len(mod.functions) == 1 and prim_funcs:
        (gv, func), = prim_funcs.items()
    else:
        exposed = [(gv, f) for gv, f in prim_funcs.items() if is_externally_exposed(f)]
        if len(exposed) != 1:
            raise ValueError(
                "AnnotateEntryFunc: the module has several functions and not exactly one of "
                f"them is externally exposed ({len(exposed)} are), so no entry is implied")
        (gv, func), = exposed
    return mod.with_functions({**mod.functions, gv: func.with_attr("tir.is_entry_func", True)})


def AnnotateEntryFunc() -> Pass:  # noqa: N802 - TVM's name
    """Mark the module's one PrimFunc (or its one externally exposed PrimFunc) with
    ``tir.is_entry_func``; a module where no function is implied is an error."""
    return module_pass(_annotate_entry, opt_level=0, name="tir.AnnotateEntryFunc")
