"""AttachGlobalSymbol: give every function without a ``global_symbol`` one (its name).

With the module attribute ``system_lib_prefix`` a PrimFunc's symbol is prefix + name and the
PrimFunc is renamed to match, so the exported symbols of several system libraries do not clash.
Functions that already have a symbol keep it.
"""

from __future__ import annotations

from ember.ir import IRModule
from ember.transform import Pass, module_pass

from ..expr import Function
from .global_var_rename import rename_functions

__all__ = ["AttachGlobalSymbol"]


def _attach(mod: IRModule, ctx) -> IRModule:
    prefix = str((mod.attrs or {}).get("system_lib_prefix", "") or "")
    names, bodies = {}, {}
    for gv, func in mod.functions.items():
        attrs = getattr(func, "attrs", None)
        if attrs is None or "global_symbol" in attrs:
            continue
        # the prefix names kernels in a system library; Relax functions are VM entry points
        symbol = gv.name_hint if isinstance(func, Function) else prefix + gv.name_hint
        bodies[gv.name_hint] = func.with_attr("global_symbol", symbol)
        names[gv.name_hint] = symbol
    if not bodies:
        return mod
    return rename_functions(mod, names, bodies)


def AttachGlobalSymbol() -> Pass:  # noqa: N802 - TVM's name
    return module_pass(_attach, opt_level=0, name="AttachGlobalSymbol")
