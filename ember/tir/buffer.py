"""Buffers: typed, shaped views of memory that TIR loads from and stores to."""

from __future__ import annotations

from dataclasses import InitVar

from ember.ir import DataType, IntImm, Node, PointerType, PrimExpr, Range, Var, as_expr, const, node

__all__ = ["Buffer", "decl_buffer", "BufferLoad", "BufferRegion", "MatchBufferRegion"]


@node
class Buffer(Node):
    """``shape``-shaped ``dtype`` data at ``data`` (a handle Var).

    ``strides`` empty means compact row-major.  The storage scope ("global",
    "local", "shared", …) is recorded on the data Var's pointer type.
    """

    data: Var
    dtype: DataType
    shape: tuple
    strides: tuple = ()
    elem_offset: PrimExpr | None = None
    name: str = "buffer"
    data_alignment: int = 64
    offset_factor: int = 1
    axis_separators: tuple = ()

    _binding = True
    _ignore_fields = ("name",)
    _zero_when_none = ("elem_offset",)  # None means offset 0: structurally equal to an IntImm 0

    READ = 1  # access masks of access_ptr
    WRITE = 2

    def scope(self) -> str:
        ann = self.data.type_annotation
        return ann.storage_scope if ann is not None else "global"

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        if any(isinstance(i, slice) for i in indices):
            return BufferRegion.from_slices(self, indices)
        return BufferLoad(self, tuple(as_expr(i) for i in indices))

    def vload(self, indices, dtype=None) -> BufferLoad:
        """Load at ``indices``; a vector ``dtype`` (e.g. "uint8x4") loads that many consecutive
        elements along the last axis (a Ramp index), as TVM."""
        idx = tuple(indices) if isinstance(indices, list | tuple) else (indices,)
        lanes = DataType(dtype).lanes // self.dtype.lanes if dtype is not None else 1
        if lanes > 1 and idx:
            from ember.ir import Ramp

            last = as_expr(idx[-1])
            idx = idx[:-1] + (Ramp(last, const(1, last.dtype), lanes),)
        return self[idx]

    def vstore(self, indices, value):
        from .stmt import BufferStore

        idx = tuple(indices) if isinstance(indices, list | tuple) else (indices,)
        return BufferStore(self, as_expr(value, self.dtype), tuple(as_expr(i) for i in idx))

    def access_ptr(self, access_mask, ptr_type: str = "handle", content_lanes: int = 1, offset=0,
                   extent=None) -> PrimExpr:
        """A ``tir.tvm_access_ptr`` to the buffer's data from element ``offset`` (plus the
        buffer's own offset) over ``extent`` elements (default: to the end); ``access_mask``
        is "r", "w", "rw" or READ | WRITE."""
        from .builtin import tvm_access_ptr, type_annotation

        if isinstance(access_mask, str):
            if not access_mask or set(access_mask) - {"r", "w"}:
                raise ValueError(f"access_ptr: access_mask must use 'r' and 'w', got {access_mask!r}")
            access_mask = (self.READ if "r" in access_mask else 0) | (self.WRITE if "w" in access_mask else 0)
        offset = as_expr(offset)
        if extent is None:
            if self.strides:
                extent = self.strides[0] * self.shape[0]
            else:
                extent = self.shape[0] if self.shape else const(1, "int32")
                for dim in self.shape[1:]:
                    extent = extent * dim
            if not (isinstance(offset, IntImm) and offset.value == 0):
                extent = extent - offset
        start = offset if self.elem_offset is None else self.elem_offset + offset
        return tvm_access_ptr(type_annotation(dtype=self.dtype), self.data, start, as_expr(extent),
                              const(int(access_mask), "int32"), dtype=ptr_type)

    def get_flattened_buffer(self) -> Buffer:
        """The physical buffer over the same data: one dimension per group of axes between
        ``axis_separators`` (the buffer itself when already one-dimensional)."""
        if len(self.shape) <= 1 and not self.axis_separators:
            return self
        cuts = [0] + [int(a) for a in self.axis_separators] + [len(self.shape)]
        shape = []
        for lo, hi in zip(cuts, cuts[1:]):
            size = const(1, "int32") if lo == hi else self.shape[lo]
            for dim in self.shape[lo + 1:hi]:
                size = size * dim
            shape.append(size)
        from ember.ir import replace

        return replace(self, shape=tuple(shape), strides=(),
                       axis_separators=tuple(const(k, "int32") for k in range(1, len(shape))))

    def offset_of(self, indices) -> PrimExpr:
        """The flat element offset of ``indices`` (row-major or via ``strides``)."""
        if self.strides:
            terms = [i * s for i, s in zip(indices, self.strides)]
            offset = terms[0] if terms else const(0, "int32")
            for t in terms[1:]:
                offset = offset + t
        else:
            offset = const(0, "int32") if not indices else indices[0]
            for dim, index in zip(self.shape[1:], indices[1:]):
                offset = offset * dim + index
        if self.elem_offset is not None and not (_is_zero(self.elem_offset)):
            offset = offset + self.elem_offset
        return offset


def check_predicate(predicate, dtype: DataType, kind: str) -> None:
    """TVM's rules for the predicate mask of a vector ``kind`` ("load" / "store") of
    ``dtype``; a mask that passes them is refused too: ember does not lower predicated
    accesses yet (they would be silently unmasked)."""
    from ember.ir.expr import DataTypeError

    mask = as_expr(predicate).dtype
    if mask.bits != 1 or mask.is_float:
        raise DataTypeError(f"Predicate mask elements must be boolean values, but got {mask.element_of()}.")
    if mask.is_scalable_vector != dtype.is_scalable_vector:
        what = "value dtype" if kind == "store" else "load indices"
        raise DataTypeError(f"Predicate mask dtype and {what} must both be scalable.")
    count = (lambda t: t.vscale_factor) if dtype.is_scalable_vector else (lambda t: t.lanes)
    if count(mask) != count(dtype):
        what = "value" if kind == "store" else "vector"
        raise DataTypeError(f"Got a predicate mask with {count(mask)} lanes, but trying to {kind} a {what} "
                            f"with {count(dtype)} lanes. The number of lanes must match.")
    raise DataTypeError(f"predicated buffer {kind}s are not supported by ember yet (the mask would be ignored)")


def _is_zero(x) -> bool:
    return getattr(x, "value", None) == 0


def decl_buffer(shape, dtype="float32", name="buffer", data=None, strides=None, elem_offset=None,
                scope="global", data_alignment=64, offset_factor=0, axis_separators=None) -> Buffer:
    """Declare a new Buffer (and its data Var unless given). As in TVM, an explicit
    ``offset_factor`` without ``elem_offset`` gives the buffer an offset Var
    ``<name>_elem_offset``; without either the offset is 0."""
    if isinstance(shape, int | PrimExpr):
        shape = (shape,)
    shape = tuple(as_expr(s) for s in shape)
    dtype = DataType(dtype)
    seps = [int(x) for x in (axis_separators or ())]
    if any(not 0 <= x <= len(shape) for x in seps) or seps != sorted(seps):
        raise ValueError(f"decl_buffer {name!r}: axis_separators {seps} must be increasing positions "
                         f"in [0, {len(shape)}] (the buffer has {len(shape)} dimensions)")
    if data is None:
        data = Var(name, "handle", PointerType(dtype, scope))
    if offset_factor and elem_offset is None:
        elem_offset = Var(f"{name}_elem_offset", shape[0].dtype if shape else "int32")
    return Buffer(
        data=data,
        dtype=dtype,
        shape=shape,
        strides=tuple(as_expr(s) for s in strides) if strides else (),
        elem_offset=as_expr(elem_offset) if elem_offset is not None else None,
        name=name,
        data_alignment=data_alignment,
        offset_factor=offset_factor or 1,
        axis_separators=tuple(axis_separators or ()),
    )


@node
class BufferLoad(PrimExpr):
    buffer: Buffer
    indices: tuple
    predicate: InitVar[object] = None  # TVM's predicate mask: checked, not supported yet

    def __post_init__(self, predicate=None):  # BufferLoad(buf, [0]), as TVM accepts: a tuple of PrimExprs
        indices = self.indices
        if not isinstance(indices, tuple) or not all(isinstance(i, PrimExpr) for i in indices):
            object.__setattr__(self, "indices", tuple(i if isinstance(i, PrimExpr) else as_expr(i)
                                                      for i in indices))
        if predicate is not None:
            check_predicate(predicate, self.dtype, "load")

    @property
    def dtype(self) -> DataType:
        lanes, scalable = self.buffer.dtype.lanes, False
        for index in self.indices:
            t = index.dtype
            if t.is_scalable_vector:  # vscale() * k lanes: count k, rebuild the expression at the end
                lanes, scalable = lanes * t.vscale_factor, True
            else:
                lanes *= t.lanes
        if scalable:
            from ember.ir.expr import scalable_lanes

            return self.buffer.dtype.with_lanes(scalable_lanes(lanes))
        return self.buffer.dtype.with_lanes(lanes)


@node
class BufferRegion(Node):
    """A rectangular region of a buffer: one Range per dimension."""

    buffer: Buffer
    region: tuple

    @staticmethod
    def full_region(buffer: Buffer) -> BufferRegion:
        return BufferRegion(buffer, tuple(Range(0, s) for s in buffer.shape))

    @staticmethod
    def from_slices(buffer: Buffer, indices) -> BufferRegion:
        region = []
        for dim, index in zip(buffer.shape, indices):
            if isinstance(index, slice):
                if index.step not in (None, 1):
                    raise ValueError(f"buffer region slices must have step 1, got {index.step}")
                start = as_expr(0 if index.start is None else index.start)
                stop = dim if index.stop is None else as_expr(index.stop)
                region.append(Range(start, stop - start))
            else:
                region.append(Range(as_expr(index), 1))
        return BufferRegion(buffer, tuple(region))


@node
class MatchBufferRegion(Node):
    """Inside a block, ``buffer`` is bound to the region ``source`` of an outer buffer."""

    buffer: Buffer
    source: BufferRegion
