"""Renaming functions of an IRModule: new GlobalVars and every Relax reference to them.

Shared by the passes that change function names (AttachGlobalSymbol with a system-lib
prefix, NormalizeGlobalVar).  Only the names change; bodies are otherwise untouched.
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule

from ..expr import Function
from ..expr_functor import ExprMutator

__all__ = ["rename_functions", "fresh_name"]


class _Renamer(ExprMutator):
    def __init__(self, new_gvs: dict):
        super().__init__()
        self.new_gvs = new_gvs

    def visit_global_var_(self, op: GlobalVar):
        return self.new_gvs.get(op.name_hint, op)


def rename_functions(mod: IRModule, names: dict, functions: dict | None = None) -> IRModule:
    """``mod`` with function ``old`` renamed to ``names[old]`` (and ``functions`` overriding
    the bodies of the given old names); the module's order and attributes are kept."""
    new_gvs = {old: GlobalVar(new) for old, new in names.items() if new != old}
    renamer = _Renamer(new_gvs)
    out = {}
    for gv, func in mod.functions.items():
        func = (functions or {}).get(gv.name_hint, func)
        if new_gvs and isinstance(func, Function):
            func = renamer.visit_expr(func)
        out[new_gvs.get(gv.name_hint, gv)] = func
    return IRModule(out, dict(mod.attrs or {}), getattr(mod, "global_infos", None))


def fresh_name(base: str, taken) -> str:
    """``base`` if free, else ``base1``, ``base2``, ... (the first not in ``taken``)."""
    if base not in taken:
        return base
    k = 1
    while f"{base}{k}" in taken:
        k += 1
    return f"{base}{k}"
