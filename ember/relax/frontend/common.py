"""Helpers shared by the frontends: ``detach_params`` moves weights kept in a function's
``params`` attribute (as importers with ``keep_params_in_input`` leave them) out of the module."""

from __future__ import annotations

from ember.ir import IRModule

from ..expr import Function

__all__ = ["detach_params"]


def detach_params(mod: IRModule) -> tuple[IRModule, dict[str, list]]:
    """``(mod without "params" attributes, {function name: its params list})``, as TVM's."""
    if not isinstance(mod, IRModule):
        raise TypeError(f"detach_params: mod must be an IRModule, got {type(mod).__name__}")
    detached: dict[str, list] = {}
    out = mod.copy()
    for gv, func in mod.functions.items():
        if isinstance(func, Function) and "params" in func.attrs:
            detached[gv.name_hint] = list(func.attrs["params"])
            out[gv] = func.without_attr("params")
    return out, detached
