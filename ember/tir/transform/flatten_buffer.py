"""FlattenBuffer: multi-dimensional buffer accesses become 1-D accesses of flat buffers.

Every ``BufferLoad`` / ``BufferStore`` of an N-d buffer is rewritten to use a flat
buffer that shares the original's ``data`` Var, has shape ``(extent,)`` and no
strides or offset; the index is the original's element offset (row-major, or via
``strides`` when present, plus ``elem_offset``).  ``Allocate`` extents become one
product and ``DeclBuffer`` statements are dropped (the lowered-TIR contract has none).
An Allocate whose int32 element count may overflow (a symbolic shape such as ``(n, n)``)
is guarded by a check, made in int64, that the count fits the int32 indices: a large ``n``
raises MemoryError at the call instead of allocating a wrapped-around size.
Parameter buffers in ``buffer_map`` are left as they are; argument checks need them.
Assumes blocks are gone (LowerOpaqueBlock) and ``axis_separators`` are unused.
"""

from __future__ import annotations

from ember.arith import Analyzer

from ember.ir import Cast, DataType, IntImm, StringImm, const, replace
from ember.transform import Pass

from ..buffer import Buffer, BufferLoad
from ..function import PrimFunc
from ..functor import IRMutator
from ..stmt import Allocate, AssertStmt, BufferStore, DeclBuffer
from ._common import make_pass
from .region_markers import marker_kind, resolve

__all__ = ["flatten_buffer", "flat_buffer_of", "FlattenBuffer"]


def _product(values):
    values = list(values)
    if not values:
        return const(1, "int32")
    out = values[0]
    for v in values[1:]:
        out = out * v
    return out


INT64 = DataType("int64")
_INT32_LIMIT = 1 << 31


def _may_overflow_int32(extents) -> bool:
    """Whether the int32 product of ``extents`` may wrap around."""
    if len(extents) < 2 or any(e.dtype.bits > 32 for e in extents):
        return False  # one int32 extent always fits; int64 extents multiply in int64
    count = 1
    for e in extents:
        if not isinstance(e, IntImm):
            return True
        count *= e.value
    return count >= _INT32_LIMIT


def _guard_int32_count(alloc: Allocate, body) -> AssertStmt:
    """``assert product(extents) < 2**31`` computed in int64, around ``body``."""
    count = _product([Cast(INT64, e) for e in alloc.extents])
    text = " * ".join(getattr(e, "name", None) or str(getattr(e, "value", e)) for e in alloc.extents)
    # the "MemoryError: " prefix makes the runtime raise MemoryError (ember.runtime.errors)
    message = (f"MemoryError: the intermediate buffer '{alloc.buffer_var.name}' would have {text} elements "
               f"of {alloc.dtype}, more than the 2**31 - 1 its int32 indices can address")
    return AssertStmt(count < const(_INT32_LIMIT, "int64"), StringImm(message), body)


def _is_flat(buf: Buffer) -> bool:
    offset = buf.elem_offset
    return (
        len(buf.shape) == 1
        and not buf.strides
        and (offset is None or (isinstance(offset, IntImm) and offset.value == 0))
    )


def flat_buffer_of(buf: Buffer) -> Buffer:
    """A 1-D buffer over the same memory as ``buf`` (``buf`` itself when already flat)."""
    if buf.axis_separators:
        raise ValueError(
            f"FlattenBuffer: buffer {buf.name!r} has axis_separators {buf.axis_separators}; "
            "expected none (multi-dimensional physical buffers are not supported)"
        )
    if _is_flat(buf):
        return buf
    analyzer = Analyzer()
    if buf.strides:
        exact = const(1, "int32")
        for dim, stride in zip(buf.shape, buf.strides):
            exact = exact + (dim - 1) * stride
        # TVM's extent: whole rows of the outermost axis (stride * size), when that covers
        # every element (it does not for, e.g., column-major strides)
        rows = buf.strides[0] * buf.shape[0]
        extent = rows if analyzer.can_prove(rows >= exact) else exact
    else:
        extent = _product(buf.shape)
    extent = analyzer.simplify(extent)
    return Buffer(
        data=buf.data, dtype=buf.dtype, shape=(extent,), name=buf.name,
        data_alignment=buf.data_alignment, offset_factor=buf.offset_factor,
    )


class _Flattener(IRMutator):
    def __init__(self):
        super().__init__()
        self.flat: dict[int, tuple[Buffer, Buffer]] = {}

    def _flat(self, buf: Buffer) -> Buffer:
        hit = self.flat.get(id(buf))
        if hit is None:
            hit = (buf, flat_buffer_of(buf))
            self.flat[id(buf)] = hit
        return hit[1]

    @staticmethod
    def _check_arity(buf: Buffer, indices) -> None:
        if len(indices) != len(buf.shape):  # an ill-formed access must not become a wild one
            raise ValueError(f"FlattenBuffer: buffer {buf.name!r} has {len(buf.shape)} dimensions but is "
                             f"accessed with {len(indices)} indices")

    def _index(self, buf: Buffer, indices) -> tuple:
        self._check_arity(buf, indices)
        if _is_flat(buf):
            return indices
        return (buf.offset_of(indices),)

    def visit_BufferLoad(self, load: BufferLoad):
        indices = self.visit(load.indices)
        self._check_arity(load.buffer, indices)
        return BufferLoad(self._flat(load.buffer), self._index(load.buffer, indices)) \
            if not _is_flat(load.buffer) else replace(load, indices=indices)

    def visit_BufferStore(self, store: BufferStore):
        value, indices = self.visit(store.value), self.visit(store.indices)
        if _is_flat(store.buffer):
            self._check_arity(store.buffer, indices)
            return replace(store, value=value, indices=indices)
        return BufferStore(self._flat(store.buffer), value, self._index(store.buffer, indices))

    def visit_Call(self, call):
        if marker_kind(call) is None:
            return self.generic_visit(call)
        lo = call.args[0]  # a tensor intrinsic's region marker: resolved against the final shape
        return resolve(call, replace(lo, indices=self.visit(lo.indices)))

    def visit_Allocate(self, alloc: Allocate):
        body = self.visit(alloc.body)
        extents = alloc.extents if len(alloc.extents) == 1 else (_product(alloc.extents),)
        flat = replace(alloc, extents=extents, body=body)
        return _guard_int32_count(alloc, flat) if _may_overflow_int32(alloc.extents) else flat

    def visit_DeclBuffer(self, decl: DeclBuffer):
        return self.visit(decl.body)


def flatten_buffer(func: PrimFunc) -> PrimFunc:
    """Flatten every buffer access in ``func``'s body (``buffer_map`` is kept)."""
    return func.with_body(_Flattener().visit(func.body))


def FlattenBuffer() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`flatten_buffer`."""
    return make_pass(flatten_buffer, "tir.FlattenBuffer")
