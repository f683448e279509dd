"""The children of an expression node, generically (by its fields): ``map_children`` rebuilds
a node with each PrimExpr child (or tuple of them) mapped, the same node back when nothing
changed.  For passes that rewrite a few node kinds and walk through all others;
``rewrite_each_once`` drives such a pass over an expression whose subtrees may be shared."""

from __future__ import annotations

from collections.abc import Callable

from ember.ir import IntImm, Node, PrimExpr, Var, fields_of, replace

__all__ = ["map_children", "rewrite_each_once"]


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


def rewrite_each_once(e: PrimExpr, step: Callable[[Node, Callable], PrimExpr]) -> PrimExpr:
    """``e`` rewritten by ``step(node, visit)``, which returns the node's rewrite and calls
    ``visit`` on the children it rewrites; each distinct node is rewritten once (shared
    subtrees stay shared), Vars, IntImms and non-nodes stay as they are."""
    memo: dict[int, tuple] = {}  # id -> (node, rewrite): the node is kept alive with its id

    def visit(x):
        if not isinstance(x, Node) or isinstance(x, Var | IntImm):
            return x
        hit = memo.get(id(x))
        if hit is not None:
            return hit[1]
        out = step(x, visit)
        memo[id(x)] = (x, out)
        return out

    return visit(e)
