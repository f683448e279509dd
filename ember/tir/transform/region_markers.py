"""Region markers: a matched buffer's data, offset and strides, kept symbolic until flattening.

A tensor intrinsic's implementation uses its buffers opaquely: ``C.data`` and
``C.elem_offset`` go into a call (``tvm_mma_sync(C.data, C.elem_offset // 256, ...)``).
When ``LowerOpaqueBlock`` inlines such a ``match_buffer`` whose source is an on-chip
allocation (``shared``, ``local``, ``wmma.*``), substituting the offset by a number
computed from the source's *current* shape would freeze it before
``CompactBufferAllocation`` shrinks that buffer.  Instead the symbols become markers
over loads of the source at the region's corners, which compaction sees as accesses
(moving and shrinking the allocation, shifting the indices) and ``FlattenBuffer``
resolves against the final shape:

* ``tir.ember_region_data(lo, hi, mask)``   → the buffer's data pointer
* ``tir.ember_region_offset(lo, hi, mask)`` → the flat offset of ``lo``
* ``tir.ember_region_stride(lo, axis)``     → the buffer's stride along ``axis``

``lo`` / ``hi`` are ``BufferLoad``s at the region's first and last element; ``mask``
says whether the intrinsic reads (1) and/or writes (2) the region.
"""

from __future__ import annotations

from ember.ir import Call, DataType, IntImm, Op, const, register_op

from ..buffer import Buffer, BufferLoad

__all__ = ["DATA", "OFFSET", "STRIDE", "MARKERS", "marker_kind", "make_symbols", "marked_accesses", "resolve",
           "uses_markers"]

DATA, OFFSET, STRIDE = "tir.ember_region_data", "tir.ember_region_offset", "tir.ember_region_stride"
MARKERS = (DATA, OFFSET, STRIDE)
for _name in MARKERS:
    try:
        Op.get(_name)
    except KeyError:
        register_op(_name, num_inputs=None, pure=True)

_ON_CHIP = ("shared", "local", "wmma.", "warp")


def uses_markers(source: Buffer) -> bool:
    """Whether a match_buffer of ``source`` (an on-chip allocation) is lowered through markers."""
    ann = source.data.type_annotation
    scope = ann.storage_scope if ann is not None else "global"
    return scope.startswith(_ON_CHIP)


def marker_kind(node) -> str | None:
    if isinstance(node, Call) and isinstance(node.op, Op) and node.op.name in MARKERS:
        return node.op.name
    return None


def make_symbols(source: Buffer, mins: list, extents: list, mask: int) -> tuple:
    """(data, elem_offset, strides) markers for the region ``mins`` + ``extents`` of ``source``."""
    lo = BufferLoad(source, tuple(mins))
    hi = BufferLoad(source, tuple(m + e - 1 for m, e in zip(mins, extents)))
    m = const(mask, "int32")
    data = Call(DataType("handle"), Op.get(DATA), (lo, hi, m))
    offset_dtype = mins[0].dtype if mins else DataType("int32")
    offset = Call(offset_dtype, Op.get(OFFSET), (lo, hi, m))
    strides = tuple(Call(offset_dtype, Op.get(STRIDE), (lo, const(axis, "int32"))) for axis in range(len(mins)))
    return data, offset, strides


def marked_accesses(call: Call) -> list[tuple[bool, BufferLoad]]:
    """(is_write, corner load) pairs a data/offset marker stands for (reads, then writes)."""
    if marker_kind(call) not in (DATA, OFFSET):
        return [(False, a) for a in call.args if isinstance(a, BufferLoad)]
    lo, hi, mask = call.args
    mask = mask.value if isinstance(mask, IntImm) else 3
    out = []
    for bit, is_write in ((1, False), (2, True)):
        if mask & bit:
            out += [(is_write, lo), (is_write, hi)]
    return out or [(False, lo), (False, hi)]


def _strides(buf: Buffer) -> list:
    if buf.strides:
        return list(buf.strides)
    strides, acc = [], const(1, buf.shape[-1].dtype if buf.shape else "int32")
    for dim in reversed(buf.shape):
        strides.append(acc)
        acc = acc * dim
    return strides[::-1]


def resolve(call: Call, load: BufferLoad):
    """The value of marker ``call`` whose (already visited, not yet flattened) corner is ``load``."""
    kind = marker_kind(call)
    buf = load.buffer
    if kind == DATA:
        return buf.data
    if kind == OFFSET:
        return buf.offset_of(list(load.indices))
    axis = call.args[1].value
    stride = _strides(buf)[axis]
    return stride if stride.dtype == call.dtype else stride.astype(call.dtype)
