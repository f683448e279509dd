"""``tvm.tir.schedule.transform``: schedule transformations built from primitives.

``tile_with_tensor_intrin(sch, block, intrin_name)`` tiles the loops of ``block`` that a
tensor intrinsic covers (``get_tensorize_loop_mapping``) by the intrinsic's loop extents and
moves the inner tiles innermost, in the description's loop order; the outer tiles keep
their places.  It returns the outermost inner tile — the loop to ``tensorize`` — or None
when the block does not map onto the intrinsic.  With ``allow_padding`` a block whose
extents are not multiples of the intrinsic's is padded first (``pad_einsum``).
"""

from __future__ import annotations

from .tensor_intrin import TensorIntrin
from .tensorize_mapping import get_tensorize_loop_mapping

__all__ = ["tile_with_tensor_intrin"]


def tile_with_tensor_intrin(sch, block, intrin_name: str, allow_padding: bool = False):
    desc = TensorIntrin.get(intrin_name).desc
    info = get_tensorize_loop_mapping(sch, block, desc, allow_padding)
    if info is None:
        return None
    if info.block_iter_paddings is not None:
        sch.pad_einsum(block, info.block_iter_paddings)
        info = get_tensorize_loop_mapping(sch, block, desc)
        if info is None:
            return None
    by_stmt = {id(sch.get(rv)): rv for rv in sch.get_loops(block)}
    mapped = sorted(info.loop_map.items(), key=lambda kv: info.desc_loop_indexer[kv[1]])
    inner = []
    for sref, d_loop in mapped:
        _, tile = sch.split(by_stmt[id(sref.stmt)], factors=[None, d_loop.extent])
        inner.append(tile)
    loops = sch.get_loops(block)
    inner_stmts = {id(sch.get(rv)) for rv in inner}
    first = min(k for k, rv in enumerate(loops) if id(sch.get(rv)) in inner_stmts)
    rest = [rv for rv in loops[first:] if id(sch.get(rv)) not in inner_stmts]
    sch.reorder(*rest, *inner)
    return inner[0]
