"""Reductions whose domain depends on other iterators: one block per dependency level.

``te.reduce_axis(Range(0, i))`` inside ``compute(lambda i: …)`` gives a reduction loop
whose extent is another iterator.  A block's iterator domains may not use its own
iterators, so, as TVM, ``create_prim_func`` nests blocks: the axes are cut into groups
where an axis's domain uses an earlier axis; each group gets its loops and a block,
and the iterators of the enclosing groups are re-bound in the inner block with unit
domains (``T.axis.spatial((v_i, v_i + 1), v_i)``).  The innermost block carries the
update; it keeps the op's name, outer ones get ``_1``, ``_2`` … from the inside out.

Only the outermost block with reduction iterators of its own has the ``init``.  TVM also
gives the inner ones an ``init``; an inner block re-binds the outer reduction iterator
with a unit domain, so its init condition holds on every outer iteration and the sum
would restart each time (see docs/tvm_compat.md).
"""

from __future__ import annotations

from ember.ir import Range, Var, const, replace
from ember.tir import (
    Block, BlockRealize, BufferLoad, BufferStore, For, ForKind, IfThenElse, IterVar, IterVarType,
    seq, substitute,
)
from ember.tir.analysis import block_access_regions

from .reduce import Reduce
from .tensor import ComputeOp

__all__ = ["domains_depend_on_axes", "nested_reduce_blocks"]


def _uses(expr, names: set) -> bool:
    from ember.tir import collect

    return bool(collect(expr, lambda n: isinstance(n, Var) and n in names))


def _groups(axes) -> list[list]:
    groups: list[list] = [[]]
    seen: set = set()
    for iv in axes:
        if groups[-1] and (_uses(iv.dom.min, seen) or _uses(iv.dom.extent, seen)):
            groups.append([])
        groups[-1].append(iv)
        seen.add(iv.var)
    return groups


def domains_depend_on_axes(op: ComputeOp) -> bool:
    """True when some iterator's domain uses an earlier iterator of ``op``."""
    return len(_groups(list(op.axis) + list(op.reduce_axis))) > 1


def nested_reduce_blocks(op: ComputeOp, buffers: dict, name: str, lowerer, annotations: dict):
    """The loop/block nest of a single-output reduction ``op`` with dependent domains."""
    first = op.body[0]
    if op.num_outputs != 1 or not isinstance(first, Reduce):
        raise NotImplementedError(
            f"create_prim_func: {name}: iterator domains that depend on other iterators are "
            "supported for single-output reductions only"
        )
    groups = _groups(list(op.axis) + list(op.reduce_axis))
    out = buffers[op.output(0)]
    return _level(op, groups, 0, {}, [], out, name, lowerer, annotations)


def _level(op, groups, k, outer: dict, before: list, out, name, lowerer, annotations):
    iters, bindings, vmap = [], [], {}
    for iv in before:  # re-bind the enclosing iterators with unit domains
        v = Var(f"v_{iv.var.name}", iv.var.dtype)
        iters.append(IterVar(Range(outer[iv.var], const(1, iv.var.dtype)), v, iv.iter_type))
        bindings.append(outer[iv.var])
        vmap[iv.var] = v
    loops = []
    for iv in groups[k]:
        loop = Var(iv.var.name, iv.var.dtype)
        lo, ext = substitute(iv.dom.min, outer), substitute(iv.dom.extent, outer)
        v = Var(f"v_{iv.var.name}", iv.var.dtype)
        iters.append(IterVar(Range(lo, ext), v, iv.iter_type))
        bindings.append(loop)
        vmap[iv.var] = v
        loops.append((loop, lo, ext))
    lower = lowerer(vmap)
    indices = tuple(vmap[iv.var] for iv in op.axis)
    first = op.body[0]
    last = k == len(groups) - 1
    if last:
        current = (BufferLoad(out, indices),)
        combined = first.combiner(current, tuple(lower.visit(s) for s in first.source))
        body = BufferStore(out, combined[0], indices)
        condition = lower.visit(first.condition)
        if not (getattr(condition, "value", None) == 1):
            body = IfThenElse(condition, body)
    else:
        body = _level(op, groups, k + 1, vmap, before + groups[k], out, name, lowerer, annotations)
    init = None
    reduces = [any(iv.iter_type == IterVarType.CommReduce for iv in g) for g in groups]
    if reduces[k] and not any(reduces[:k]):  # only the outermost reduction block starts the sum
        starts = first.init or first.combiner.identity_element
        init = seq(*[BufferStore(out, lower.visit(starts[0]), indices)])
    block_name = name if last else f"{name}_{len(groups) - 1 - k}"
    block = Block(tuple(iters), (), (), block_name, body, init,
                  annotations=annotations if k == 0 else {})
    reads, writes = block_access_regions(block, exclude_written_from_reads=True)
    nest = BlockRealize(tuple(bindings), const(True), replace(block, reads=reads, writes=writes))
    for loop, lo, ext in reversed(loops):
        nest = For(loop, lo, ext, ForKind.SERIAL, nest)
    return nest
