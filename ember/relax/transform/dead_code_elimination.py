"""DeadCodeElimination: drop unused pure bindings, then functions unreachable from the
entry functions (those named in ``entry_functions``, else every public function —
one with a ``global_symbol``).  Impure calls are kept even when unused."""

from __future__ import annotations

from ember.ir import IRModule
from ember.transform import Pass, module_pass

from ..analysis.vars import all_global_vars, remove_all_unused
from ..expr import Function

__all__ = ["DeadCodeElimination"]


def _entries(mod: IRModule, entry_functions) -> list[str]:
    if entry_functions:
        return [str(getattr(e, "name_hint", e)) for e in entry_functions]
    return [gv.name_hint for gv, f in mod.functions.items() if "global_symbol" in (getattr(f, "attrs", None) or {})]


def _reachable(mod: IRModule, entries: list[str]) -> set[str]:
    seen: set[str] = set()
    stack = [e for e in entries if e in mod]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        func = mod[name]
        if isinstance(func, Function):
            stack.extend(gv.name_hint for gv in all_global_vars(func) if gv.name_hint in mod)
    return seen


def DeadCodeElimination(entry_functions=None) -> Pass:  # noqa: N802 - TVM's name
    def transform(mod: IRModule, ctx) -> IRModule:
        functions = {}
        changed = False
        for gv, func in mod.functions.items():
            new = remove_all_unused(func, mod) if isinstance(func, Function) else func
            changed |= new is not func
            functions[gv] = new
        mod = mod.with_functions(functions) if changed else mod
        entries = _entries(mod, entry_functions)
        if not entries:
            return mod
        live = _reachable(mod, entries)
        if len(live) == len(mod.functions):
            return mod
        return mod.with_functions({gv: f for gv, f in mod.functions.items() if gv.name_hint in live})

    return module_pass(transform, opt_level=1, name="DeadCodeElimination")
