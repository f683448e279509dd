"""NormalizeGlobalVar: a public function's GlobalVar is named after its ``global_symbol``.

A function whose symbol differs from its name is renamed to the symbol; a private function
already holding that name moves to a fresh one (``f`` → ``f1``).  Every reference follows.
"""

from __future__ import annotations

from ember.ir import IRModule
from ember.transform import Pass, module_pass

from .global_var_rename import fresh_name, rename_functions

__all__ = ["NormalizeGlobalVar"]


def _symbol(func):
    attrs = getattr(func, "attrs", None) or {}
    symbol = attrs.get("global_symbol")
    return None if symbol is None else str(symbol)


def _normalize(mod: IRModule, ctx) -> IRModule:
    wanted = {}
    for gv, func in mod.functions.items():
        symbol = _symbol(func)
        if symbol is not None and symbol != gv.name_hint:
            wanted[gv.name_hint] = symbol
    if not wanted:
        return mod
    claimed = set(wanted.values())
    names = dict(wanted)
    final = {wanted.get(gv.name_hint, gv.name_hint) for gv in mod.functions}
    for gv, func in mod.functions.items():
        name = gv.name_hint
        if name in wanted or name not in claimed:
            continue
        if _symbol(func) is not None:
            raise ValueError(f"NormalizeGlobalVar: functions {name!r} and the one with global_symbol {name!r} "
                             "are both public under the same name")
        taken = final | set(names.values()) | {n for n in mod.functions if n not in wanted}
        names[name] = fresh_name(name, taken | {name})
    return rename_functions(mod, names)


def NormalizeGlobalVar() -> Pass:  # noqa: N802 - TVM's name
    return module_pass(_normalize, opt_level=0, name="NormalizeGlobalVar")
