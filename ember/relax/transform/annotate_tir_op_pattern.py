"""AnnotateTIROpPattern: mark each PrimFunc with the ``op_pattern`` attribute FuseOps reads.

The pattern of a function is the most general pattern of its blocks:

- a block without reduction iterators compares each load's indices with the store's:
  the same indices → kElemWise; a subsequence of them (or constants) → kBroadcast;
  anything else → kInjective;
- a reduction block whose update is ``out = out + a * b`` (matmul, conv) →
  kOutEWiseFusable, any other reduction (tuple reductions included) → kCommReduce;
- stores outside blocks or several stores in a non-reduction block → kOpaque.

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


def _is_subsequence(load_idx, store_idx) -> bool:
    """Each load index is a constant or a store index variable, in store order."""
    pos = 0
    for i in load_idx:
        if isinstance(i, IntImm):
            continue
        while pos < len(store_idx) and store_idx[pos] is not i:
            pos += 1
        if pos == len(store_idx):
            return False
        pos += 1
    return True


def _same(a, b) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _load_pattern(load: BufferLoad, store: BufferStore) -> OpPatternKind:
    if _same(load.indices, store.indices):
        return OpPatternKind.kElemWise
    if all(isinstance(i, Var | IntImm) for i in store.indices) and _is_subsequence(load.indices, store.indices):
        return OpPatternKind.kBroadcast
    return OpPatternKind.kInjective


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


def _block_pattern(block: Block) -> OpPatternKind:
    stores: list[BufferStore] = []
    post_order_visit(block.body, lambda n: stores.append(n) if isinstance(n, BufferStore) else None)
    reduces = any(iv.iter_type == IterVarType.CommReduce for iv in block.iter_vars)
    if reduces and len(stores) > 1:  # a tuple reduction (argmax, mean and variance at once)
        return OpPatternKind.kCommReduce
    if len(stores) != 1:
        return OpPatternKind.kOpaque
    store = stores[0]
    if reduces:
        return OpPatternKind.kOutEWiseFusable if _is_multiply_add(store) else OpPatternKind.kCommReduce
    kind = OpPatternKind.kElemWise
    for load in _loads(store.value):
        kind = max(kind, _load_pattern(load, store))
    return kind


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
    for blk in blocks:
        kind = max(kind, _block_pattern(blk))
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
