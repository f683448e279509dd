"""Loop kinds and annotations: parallel, vectorize, unroll, bind, annotate, unannotate.

``parallel`` and ``vectorize`` are refused on a loop that feeds a reduction iterator
of a block below it, or whose blocks read a buffer they write at a different place
(a loop-carried dependence such as ``A[i] = A[i - 1] + 1``).
"""

from __future__ import annotations

from ember.ir import Range, Var, replace
from ember.tir.stmt import Block, BlockRealize, For, ForKind, IterVar, IterVarType

from . import _arith
from .analysis import blocks_under, replace_stmts, vars_in
from .errors import ScheduleError

__all__ = ["set_kind", "bind", "annotate", "unannotate", "THREAD_TAGS"]

THREAD_TAGS = {f"{p}.{a}" for p in ("blockIdx", "threadIdx", "vthread") for a in "xyz"} | {"vthread"}
_KIND_BY_NAME = {"parallel": ForKind.PARALLEL, "vectorize": ForKind.VECTORIZED, "unroll": ForKind.UNROLLED}


def _check_data_parallel(func, loop: For, what: str) -> None:
    from ember.tir.functor import collect

    loop_vars = {f.loop_var for f in collect(func.body, lambda n: isinstance(n, For))}
    for realize in blocks_under(loop.body):
        block = realize.block
        # TVM: quasi-affine bindings, and a compact data flow (a reduction's output is
        # indexed by spatial iterators only)
        for iv, value in zip(block.iter_vars, realize.iter_values):
            if not _arith.is_quasi_affine(value, loop_vars):
                raise ScheduleError(f"cannot {what} loop {loop.loop_var.name!r}: block {block.name_hint!r} "
                                    f"binds {iv.var.name!r} to {value!r}, which is not quasi-affine",
                                    func, loop=loop)
        reduce_vars = {iv.var for iv in block.iter_vars if iv.iter_type == IterVarType.CommReduce}
        if any(v in reduce_vars for w in block.writes for r in w.region for v in vars_in(r.min)):
            raise ScheduleError(f"cannot {what} loop {loop.loop_var.name!r}: block {block.name_hint!r} writes "
                                "an element chosen by a reduction iterator (not a compact data flow)",
                                func, loop=loop)
        for iv, value in zip(block.iter_vars, realize.iter_values):
            if loop.loop_var in vars_in(value) and iv.iter_type != IterVarType.DataPar:
                kind = "reduction" if iv.iter_type == IterVarType.CommReduce else "non-spatial"
                raise ScheduleError(
                    f"cannot {what} loop {loop.loop_var.name!r}: it is bound to the {kind} iterator "
                    f"{iv.var.name!r} of block {block.name_hint!r}", func, loop=loop)
        for w in block.writes:
            for r in block.reads:
                if r.buffer is w.buffer and not _same_region(r.region, w.region):
                    raise ScheduleError(
                        f"cannot {what} loop {loop.loop_var.name!r}: block {block.name_hint!r} reads "
                        f"buffer {w.buffer.name!r} at a different place than it writes it "
                        "(a loop-carried dependence)", func, loop=loop)


def _same_region(a, b) -> bool:
    for ra, rb in zip(a, b):
        if _arith.as_int(_arith.simplify(ra.min - rb.min)) != 0:
            return False
        if _arith.as_int(_arith.simplify(ra.extent - rb.extent)) != 0:
            return False
    return True


def set_kind(func, loop: For, what: str):
    """``what`` is "parallel", "vectorize" or "unroll"."""
    if what in ("parallel", "vectorize"):
        _check_data_parallel(func, loop, what)
    new = replace(loop, kind=_KIND_BY_NAME[what], thread_binding=None)
    return replace_stmts(func, {loop: new})


def bind(func, loop: For, thread_axis: str):
    if thread_axis not in THREAD_TAGS:
        raise ScheduleError(
            f"bind: thread_axis must be one of {', '.join(sorted(THREAD_TAGS))}, got {thread_axis!r}",
            func, loop=loop)
    if not thread_axis.startswith("threadIdx"):
        _check_data_parallel(func, loop, f"bind to {thread_axis}")
    iv = IterVar(Range(loop.min, loop.extent), Var(thread_axis, loop.loop_var.dtype),
                 IterVarType.ThreadIndex, thread_axis)
    new = replace(loop, kind=ForKind.THREAD_BINDING, thread_binding=iv)
    return replace_stmts(func, {loop: new})


def _target_node(target):
    return target.block if isinstance(target, BlockRealize) else target


def annotate(func, target, key: str, value):
    """Set ``annotations[key] = value`` on a loop (For) or a block (its BlockRealize)."""
    if not isinstance(key, str):
        raise ScheduleError(f"annotate: ann_key must be a str, got {type(key).__name__}", func)
    node = _target_node(target)
    new = replace(node, annotations={**node.annotations, key: value})
    return replace_stmts(func, {node: new})


def unannotate(func, target, key: str):
    node = _target_node(target)
    if key not in node.annotations:
        what = f"block {node.name_hint!r}" if isinstance(node, Block) else f"loop {node.loop_var.name!r}"
        raise ScheduleError(f"unannotate: {what} has no annotation {key!r} "
                            f"(annotations: {sorted(node.annotations)})", func,
                            block=node if isinstance(node, Block) else None,
                            loop=node if isinstance(node, For) else None)
    new = replace(node, annotations={k: v for k, v in node.annotations.items() if k != key})
    return replace_stmts(func, {node: new})
