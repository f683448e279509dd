"""Binding queries: ``name_to_binding(func)`` (variable name → its bindings, shadowed names
collect several) and ``udchain(block)`` (each variable → the variables whose bindings use it)."""

from __future__ import annotations

from ..expr import BindingBlock, Function, SeqExpr

__all__ = ["name_to_binding", "udchain"]


def _blocks(expr):
    if isinstance(expr, Function):
        yield from _blocks(expr.body)
    elif isinstance(expr, SeqExpr):
        for block in expr.blocks:
            yield block
            for b in block.bindings:
                yield from _blocks(b.value)


def name_to_binding(func: Function) -> dict:
    """``{name: [binding, ...]}`` over every binding of ``func`` (nested functions included)."""
    if not isinstance(func, Function):
        raise TypeError(f"name_to_binding: func must be a relax.Function, got {type(func).__name__}")
    out: dict = {}
    for block in _blocks(func):
        for b in block.bindings:
            out.setdefault(b.var.name_hint, []).append(b)
    return out


def udchain(dfb: BindingBlock) -> dict:
    """``{var: [users]}`` for the variables a binding block defines or uses."""
    from .vars import free_vars

    if not isinstance(dfb, BindingBlock):
        raise TypeError(f"udchain: dfb must be a binding block, got {type(dfb).__name__}")
    users: dict = {}
    for b in dfb.bindings:
        users.setdefault(b.var, [])
        for used in free_vars(b.value):
            lst = users.setdefault(used, [])
            if b.var not in lst:
                lst.append(b.var)
    return users
