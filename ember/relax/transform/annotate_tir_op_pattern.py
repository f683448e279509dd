"""AnnotateTIROpPattern: mark each PrimFunc with the ``op_pattern`` attribute FuseOps reads.

The pattern of a function comes from its blocks in order, as TVM's analysis finds it:

- the indices of each load against the block's store: the same → kElemWise; a subsequence
  (unit dims read at 0 skipped) → kBroadcast, or kElemWise when another load is elementwise;
  using only store variables → kInjective.  Such a block writing a function output after a
  kCommReduce block makes the function kOutEWiseFusable (softmax, layer norm);
- otherwise, a reduction block: ``out = out + a * b`` (matmul, conv) or loads mixing reduction
  variables into other indices (pooling windows) → kOutEWiseFusable, else kCommReduce;
- stores outside blocks, stores at different indices in one block, or a non-reduction block
  whose loads fit none of the patterns → kOpaque.

Functions that already carry ``op_pattern`` keep it.
"""

from __future__ import annotations

import enum

from ember.ir import IntImm, IRModule, Var
from ember.tir import Block, BlockRealize, BufferLoad, BufferStore, PrimFunc
from ember.tir.functor import post_order_visit, pre_order_visit
from ember.tir.stmt import IterVarType
from ember.transform import Pass, module_pass

__all__ = ["AnnotateTIROpPattern", "OpPatternKind", "analyze_op_pattern"]


class OpPatternKind(enum.IntEnum):
    """TVM's operator pattern kinds (larger is less fusable)."""

    kElemWise = 0  # noqa: N815 - TVM's names
    kBroadcast = 1  # noqa: N815
    kInjective = 2  # noqa: N815
    kCommReduce = 3  # noqa: N815
    kOutEWiseFusable = 4  # noqa: N815
    kTuple = 7  # noqa: N815
    kOpaque = 8  # noqa: N815


def _loads(expr) -> list[BufferLoad]:
    found: list[BufferLoad] = []
    post_order_visit(expr, lambda n: found.append(n) if isinstance(n, BufferLoad) else None)
    return found


def _is_broadcast(load: BufferLoad, store: BufferStore) -> bool:
    """Each load index (unit dims read at 0 aside) is a store index, in store order."""
    pos = 0
    for extent, i in zip(load.buffer.shape, load.indices):
        if _is_const(extent, 1) and _is_const(i, 0):
            continue
        while pos < len(store.indices) and not _same_expr(store.indices[pos], i):
            pos += 1
        if pos == len(store.indices):
            return False
        pos += 1
    return True


def _is_const(e, value: int) -> bool:
    return isinstance(e, IntImm) and e.value == value


def _same_expr(a, b) -> bool:
    return a is b or (isinstance(a, IntImm) and isinstance(b, IntImm) and a.value == b.value)


def _vars_in(expr) -> set:
    found: set = set()
    post_order_visit(expr, lambda n: found.add(n) if isinstance(n, Var) else None)
    return found


def _is_injective(load: BufferLoad, store: BufferStore) -> bool:
    """The store indices are plain variables and the load indices use no others."""
    if not all(isinstance(i, Var) for i in store.indices):
        return False
    allowed = set(store.indices)
    return all(_vars_in(i) <= allowed for i in load.indices)


def _same(a, b) -> bool:
    return len(a) == len(b) and all(_same_expr(x, y) for x, y in zip(a, b))


def _index_pattern(loads, store: BufferStore) -> OpPatternKind | None:
    """The pattern the load/store indices give, None when some load is none of them
    (a reduction or gather-like access).  One elementwise load makes broadcast ones
    elementwise (``C[i, j] = A[i, j] + B[j]``), as TVM's analysis counts it."""
    kind, elemwise = OpPatternKind.kElemWise, False
    for load in loads:
        if _same(load.indices, store.indices):
            elemwise = True
        elif _is_broadcast(load, store):
            kind = max(kind, OpPatternKind.kBroadcast)
        elif _is_injective(load, store):
            kind = max(kind, OpPatternKind.kInjective)
        else:
            return None
    return OpPatternKind.kElemWise if kind == OpPatternKind.kBroadcast and elemwise else kind


def _is_pure_reduce(reduce_vars: set, indices) -> bool:
    """Each index is a reduction variable itself or uses none."""
    return all(i in reduce_vars or not (_vars_in(i) & reduce_vars) for i in indices)


def _strip_cast(e):
    from ember.ir import Cast

    return e.value if isinstance(e, Cast) else e


def _is_multiply_add(store: BufferStore) -> bool:
    from ember.ir import Add, Mul

    v = store.value
    if not isinstance(v, Add):
        return False
    acc, prod = (v.a, v.b) if isinstance(v.a, BufferLoad) and v.a.buffer is store.buffer else (v.b, v.a)
    if not (isinstance(acc, BufferLoad) and acc.buffer is store.buffer):
        return False
    prod = _strip_cast(prod)
    return isinstance(prod, Mul) and all(_loads(x) for x in (prod.a, prod.b))


def _block_pattern(block: Block, kind: OpPatternKind, outputs: set) -> OpPatternKind:
    """``kind`` (of the blocks before) updated with ``block``'s, following TVM's analysis."""
    stores: list[BufferStore] = []
    post_order_visit(block.body, lambda n: stores.append(n) if isinstance(n, BufferStore) else None)
    if not stores or any(not _same(s.indices, stores[0].indices) for s in stores[1:]):
        return OpPatternKind.kOpaque
    store = stores[-1]
    loads = _loads(block.body)
    index_kind = _index_pattern(loads, store)
    if index_kind is not None:
        if kind == OpPatternKind.kCommReduce and any(s.buffer in outputs for s in stores):
            return OpPatternKind.kOutEWiseFusable  # reduce then injective output (softmax, norms)
        return max(kind, index_kind)
    reduce_vars = {iv.var for iv in block.iter_vars if iv.iter_type == IterVarType.CommReduce}
    if not reduce_vars:
        return OpPatternKind.kOpaque
    if len(stores) == 1 and _is_multiply_add(store):  # matmul, conv
        return max(kind, OpPatternKind.kOutEWiseFusable)
    if not all(_is_pure_reduce(reduce_vars, load.indices) for load in loads):
        return max(kind, OpPatternKind.kOutEWiseFusable)  # windows such as pooling
    return max(kind, OpPatternKind.kCommReduce)


def analyze_op_pattern(func: PrimFunc) -> OpPatternKind:
    """The fusion pattern of ``func`` (see module docstring)."""
    kind = OpPatternKind.kElemWise
    opaque = [False]
    blocks: list[Block] = []

    def visit(node):
        if isinstance(node, BlockRealize):
            blk = node.block
            if blk.iter_vars or blk.name_hint != "root":
                blocks.append(blk)
                return False  # a block is analysed as a whole
            return True
        if isinstance(node, BufferStore):
            opaque[0] = True
        return True

    pre_order_visit(func.body, visit)
    if opaque[0] or not blocks:
        return OpPatternKind.kOpaque
    outputs = set(func.buffer_map.values())
    for blk in blocks:
        kind = _block_pattern(blk, kind, outputs)
        if kind == OpPatternKind.kOpaque:
            break
    return kind


def AnnotateTIROpPattern() -> Pass:  # noqa: N802 - TVM's name
    """Set ``op_pattern`` on every PrimFunc of the module that has none yet."""

    def run(mod: IRModule, ctx) -> IRModule:
        functions, changed = {}, False
        for gv, func in mod.functions.items():
            if isinstance(func, PrimFunc) and "op_pattern" not in func.attrs:
                func = func.with_attr("op_pattern", int(analyze_op_pattern(func)))
                changed = True
            functions[gv] = func
        return mod.with_functions(functions) if changed else mod

    return module_pass(run, opt_level=0, name="AnnotateTIROpPattern")
