"""Copying a statement with fresh variables for everything it defines (used when a body is duplicated)."""

from __future__ import annotations

from ember.ir import Let, Var

from ..functor import post_order_visit, substitute
from ..stmt import Allocate, For, LetStmt

__all__ = ["copy_with_fresh_vars"]

def _copy_var(v: Var) -> Var:
    return type(v)(v.name, v.dtype, v.type_annotation)

def copy_with_fresh_vars(stmt, vmap: dict | None = None):
    """``stmt`` with ``vmap`` substituted and every loop / let / allocation var renewed."""
    defined: dict[int, Var] = {}

    def visit(node):
        if isinstance(node, For):
            defined.setdefault(id(node.loop_var), node.loop_var)
        elif isinstance(node, LetStmt | Let):
            defined.setdefault(id(node.var), node.var)
        elif isinstance(node, Allocate):
            defined.setdefault(id(node.buffer_var), node.buffer_var)

    post_order_visit(stmt, visit)
    mapping = dict(vmap or {})
    for v in defined.values():
        mapping[v] = _copy_var(v)
    return substitute(stmt, mapping) if mapping else stmt

