"""Intrinsics the code generators understand that only lowered code uses.

``tir.tvm_struct_get(handle, 0, field)`` reads a field of the DLTensor at ``handle``
(``field`` is a ``DLTensorField`` code); ``tir.isnullptr(handle)`` tests a pointer.
``make_packed_api`` emits them; every backend maps them in its own table.
"""

from __future__ import annotations

import enum

from ember.ir import Call, DataType, IntImm, Op, PrimExpr, register_op

__all__ = ["DLTensorField", "struct_get", "isnullptr", "FIELD_DTYPES"]

STRUCT_GET = register_op("tir.tvm_struct_get", num_inputs=3, pure=True)
ISNULLPTR = register_op("tir.isnullptr", num_inputs=1, pure=True)


class DLTensorField(enum.IntEnum):
    """Fields of a DLTensor readable with ``tir.tvm_struct_get``."""

    DATA = 0  # data pointer with byte_offset already added
    DEVICE_TYPE = 1
    DEVICE_ID = 2
    NDIM = 3
    DTYPE_CODE = 4
    DTYPE_BITS = 5
    DTYPE_LANES = 6
    SHAPE = 7  # int64* to ndim extents
    STRIDES = 8  # int64* (NULL: compact row-major)
    BYTE_OFFSET = 9
    RAW_DATA = 10  # data pointer as stored


FIELD_DTYPES = {
    DLTensorField.DATA: "handle",
    DLTensorField.DEVICE_TYPE: "int32",
    DLTensorField.DEVICE_ID: "int32",
    DLTensorField.NDIM: "int32",
    DLTensorField.DTYPE_CODE: "int32",
    DLTensorField.DTYPE_BITS: "int32",
    DLTensorField.DTYPE_LANES: "int32",
    DLTensorField.SHAPE: "handle",
    DLTensorField.STRIDES: "handle",
    DLTensorField.BYTE_OFFSET: "int64",
    DLTensorField.RAW_DATA: "handle",
}


def struct_get(handle: PrimExpr, field: DLTensorField) -> Call:
    """Read ``field`` of the DLTensor at ``handle``."""
    return Call(
        DataType(FIELD_DTYPES[field]), Op.get("tir.tvm_struct_get"),
        (handle, IntImm(DataType("int32"), 0), IntImm(DataType("int32"), int(field))),
    )


def isnullptr(handle: PrimExpr) -> Call:
    return Call(DataType("bool"), Op.get("tir.isnullptr"), (handle,))
