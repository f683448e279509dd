"""Put a PrimFunc in the form the CPU rules match, without changing what it computes.

Two rewrites, both exact:

* A broadcast read of a unit dimension (``lv[0, j]`` inside a block that writes
  ``out[i, j]`` with ``i`` ranging over one value) indexes that dimension with the
  block's unit iterator instead of the constant ``0``.  Fused kernels made of topi
  broadcasts are full of these, and ``reverse_compute_at`` / ``compute_inline`` need
  iterators, not constants, to move an epilogue (bias add, relu) into a matmul tile.
* Blocks without iterators (or with unit ones only) that compute a scalar intermediate (``astype`` of a 0-d
  constant, as ONNX Relu imports) are inlined into their readers.
"""

from __future__ import annotations

from ember.ir import IntImm, replace
from ember.tir import Block, BufferLoad, BufferStore, PrimFunc, Var, ir_transform, post_order_visit
from ember.tir.analysis import complete_block_access
from ember.tir.schedule import Schedule, ScheduleError

from ..analysis import const_int


def _unit_index_block(block: Block) -> Block:
    unit = {iv.var for iv in block.iter_vars if const_int(iv.dom.extent) == 1}
    if not unit:
        return block
    stores: list = []
    post_order_visit(block.body, lambda n: stores.append(n) if isinstance(n, BufferStore) else None)
    if len(stores) != 1:
        return block
    out = stores[0].indices

    def rewrite(node):
        if not isinstance(node, BufferLoad) or node.buffer is stores[0].buffer:
            return None
        shift = len(out) - len(node.indices)
        indices = list(node.indices)
        for d, index in enumerate(indices):
            target = out[d + shift] if 0 <= d + shift < len(out) else None
            if (isinstance(index, IntImm) and index.value == 0 and const_int(node.buffer.shape[d]) == 1
                    and isinstance(target, Var) and target in unit):
                indices[d] = target
        return replace(node, indices=tuple(indices)) if indices != list(node.indices) else None

    body = ir_transform(block.body, None, rewrite, ["BufferLoad"])
    if body is block.body:
        return block
    return complete_block_access(replace(block, body=body))


def normalize_for_rules(func: PrimFunc) -> PrimFunc:
    """``func`` with unit broadcast indices as iterators and scalar intermediates inlined."""

    def post(node):
        if isinstance(node, Block) and node.name_hint != "root":
            new = _unit_index_block(node)
            return new if new is not node else None
        return None

    body = ir_transform(func.body, None, post, ["Block"])
    if body is not func.body:
        func = replace(func, body=body)
    sch = Schedule(func)
    changed = False
    for rv in sch.get_child_blocks(sch.get_block("root")):
        block = sch.get(rv)
        # a scalar block has no iterators, or only unit ones (te gives 0-d outputs one, as TVM)
        if any(const_int(iv.dom.extent) != 1 for iv in block.iter_vars) or not sch.get_consumers(rv):
            continue
        try:
            sch.compute_inline(rv)
            changed = True
        except ScheduleError:
            pass
    return next(iter(sch.mod.functions.values())) if changed else func
