"""StorageRewrite (lite): temporaries whose lifetimes do not overlap share memory.

In a sequence ``{Allocate(a){…}; S…; Allocate(b){…}}`` the two allocations are live
at disjoint times, so when they have the same dtype and storage scope, constant
extents and a true condition, ``b`` reuses ``a``: the result is one
``Allocate(a, max(extent_a, extent_b)){…; S…; body_b[b := a]}``.  Buffers over
``b`` are rebuilt over ``a``'s data Var.  Nothing else is planned (no reuse across
nesting levels, no in-place reuse, no merging of different dtypes).
Assumes flat allocations (FlattenBuffer ran).
"""

from __future__ import annotations

from ember.ir import IntImm, const
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator, substitute
from ..stmt import Allocate, SeqStmt, seq
from ._common import logger, make_pass

__all__ = ["storage_rewrite", "StorageRewrite"]


def _scope(alloc: Allocate) -> str:
    ann = alloc.buffer_var.type_annotation
    return ann.storage_scope if ann is not None else "global"


def _reusable(stmt) -> bool:
    return (
        isinstance(stmt, Allocate)
        and isinstance(stmt.condition, IntImm) and bool(stmt.condition.value)
        and len(stmt.extents) == 1 and isinstance(stmt.extents[0], IntImm)
    )


def _compatible(a: Allocate, b: Allocate) -> bool:
    return a.dtype is b.dtype and _scope(a) == _scope(b)


class _Rewriter(IRMutator):
    def visit_SeqStmt(self, stmt: SeqStmt):
        items = [self.visit(s) for s in stmt.seq]
        out: list = []
        for item in items:
            host = None
            if _reusable(item):
                for k in range(len(out) - 1, -1, -1):
                    if _reusable(out[k]) and _compatible(out[k], item):
                        host = k
                        break
            if host is None:
                out.append(item)
                continue
            keep = out[host]
            extent = max(keep.extents[0].value, item.extents[0].value)
            moved = substitute(item.body, {item.buffer_var: keep.buffer_var})
            logger.debug("StorageRewrite: %s reuses the memory of %s", item.buffer_var.name, keep.buffer_var.name)
            body = seq(keep.body, *out[host + 1:], moved)
            merged = Allocate(keep.buffer_var, keep.dtype, (const(extent, keep.extents[0].dtype),),
                              keep.condition, body, keep.annotations)
            out[host:] = [merged]
        if len(out) == len(stmt.seq) and all(a is b for a, b in zip(out, stmt.seq)):
            return stmt
        return seq(*out)


def storage_rewrite(func: PrimFunc) -> PrimFunc:
    """Let sibling temporaries of ``func`` share memory."""
    return func.with_body(_Rewriter().visit(func.body))


def StorageRewrite() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`storage_rewrite`."""
    return make_pass(storage_rewrite, "tir.StorageRewrite")
