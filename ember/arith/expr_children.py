"""The children of an expression node, generically (by its fields): ``map_children`` rebuilds
a node with each PrimExpr child (or tuple of them) mapped, the same node back when nothing
changed.  For passes that rewrite a few node kinds and walk through all others."""

from __future__ import annotations

from collections.abc import Callable

from ember.ir import Node, PrimExpr, fields_of, replace

__all__ = ["map_children"]


def map_children(e: Node, visit: Callable[[PrimExpr], PrimExpr]) -> Node:
    changes = {}
    for name in fields_of(type(e)):
        v = getattr(e, name)
        if isinstance(v, PrimExpr):
            nv = visit(v)
            if nv is not v:
                changes[name] = nv
        elif isinstance(v, tuple) and any(isinstance(x, PrimExpr) for x in v):
            nv = tuple(visit(x) if isinstance(x, PrimExpr) else x for x in v)
            if any(a is not b for a, b in zip(nv, v)):
                changes[name] = nv
    return replace(e, **changes) if changes else e
