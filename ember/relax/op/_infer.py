"""Shared struct-info inference rules: broadcasting, dtype agreement, reductions over axes."""

from __future__ import annotations

from ember.ir import DataType, IntImm, PrimExpr

from .._arith import as_int, prove_equal, simplify
from ..struct_info import PrimStructInfo, TensorStructInfo, shape_values
from .base import normalize_axis, op_name, shape_arg, shape_str, tensor_arg

__all__ = ["broadcast_shapes", "binary_dtype", "as_tensor_sinfo", "tensor", "prod",
           "allocated_tensor", "same_checking_axis"]


def tensor(values, dtype, vdevice=None, ndim: int = -1) -> TensorStructInfo:
    """A TensorStructInfo from dims (or None with ``ndim``)."""
    if values is None:
        return TensorStructInfo(None, dtype, vdevice, ndim)
    return TensorStructInfo(list(values), dtype, vdevice)


def allocated_tensor(call, shape_index: int, dtype_index: int) -> TensorStructInfo:
    """An allocation's result: the shape is argument ``shape_index``, the dtype (a
    DataTypeImm) argument ``dtype_index``."""
    values = shape_arg(call, shape_index)
    dtype = call.args[dtype_index].value
    if values is None:
        return TensorStructInfo(None, dtype, ndim=call.args[shape_index].struct_info.ndim)
    return TensorStructInfo(list(values), dtype)


def same_checking_axis(call, ctx) -> TensorStructInfo:
    """The struct info of the data argument, once ``call.attrs.axis`` is checked against it."""
    x = tensor_arg(call, 0)
    if x.ndim != -1:
        normalize_axis(call, call.attrs.axis, x.ndim)
    return TensorStructInfo(x.shape, x.dtype, x.vdevice, x.ndim)


def as_tensor_sinfo(call, i: int) -> TensorStructInfo:
    """Argument ``i`` as a tensor; a PrimValue counts as a 0-d tensor of its dtype."""
    sinfo = call.args[i].struct_info
    if isinstance(sinfo, PrimStructInfo):
        return TensorStructInfo([], sinfo.dtype)
    if not isinstance(sinfo, TensorStructInfo):
        from .base import tensor_arg

        return tensor_arg(call, i)
    return sinfo


def broadcast_shapes(call, a: TensorStructInfo, b: TensorStructInfo) -> tuple[tuple | None, int]:
    """numpy broadcasting of two tensors' shapes → (dims or None, ndim)."""
    if a.ndim == -1 or b.ndim == -1:
        return None, -1
    ndim = max(a.ndim, b.ndim)
    va, vb = shape_values(a), shape_values(b)
    if va is None or vb is None:
        return None, ndim
    out: list[PrimExpr] = []
    for k in range(1, ndim + 1):
        da = va[-k] if k <= len(va) else None
        db = vb[-k] if k <= len(vb) else None
        if da is None:
            out.append(db)
            continue
        if db is None:
            out.append(da)
            continue
        ia, ib = as_int(da), as_int(db)
        if ia == 1:
            out.append(db)
        elif ib == 1:
            out.append(da)
        elif prove_equal(da, db):
            out.append(da)
        elif ia is not None and ib is not None:
            raise ValueError(
                f"{op_name(call)}: cannot broadcast shapes {shape_str(va)} and {shape_str(vb)} "
                f"(dimension {ia} vs {ib})"
            )
        else:
            return None, ndim  # symbolic dims that may or may not match: shape unknown
    return tuple(reversed(out)), ndim


def broadcast_many(call, infos: list[TensorStructInfo]) -> tuple[tuple | None, int]:
    acc = infos[0]
    for other in infos[1:]:
        values, ndim = broadcast_shapes(call, acc, other)
        acc = tensor(values, acc.dtype, ndim=ndim)
    return shape_values(acc), acc.ndim


def binary_dtype(call, a: DataType | None, b: DataType | None) -> DataType | None:
    """Both operands must share a dtype (unknown on either side gives unknown)."""
    if a is None or b is None:
        return None
    if a != b:
        raise TypeError(f"{op_name(call)}: operand dtypes must match, got {a} and {b}")
    return a


def prod(values) -> PrimExpr:
    """The product of dims, folded for constants and simplified otherwise."""
    total: PrimExpr = IntImm(DataType("int64"), 1)
    for v in values:
        total = total * v
    return simplify(total)
