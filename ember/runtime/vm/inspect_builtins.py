"""VM builtins behind ``relax.op.inspect``: read one field of an array's DLTensor.

``vm.builtin.tensor_dtype_code`` / ``_bits`` / ``_lanes`` / ``tensor_ndim`` /
``tensor_shape_i`` / ``tensor_stride_i`` / ``tensor_byte_offset`` / ``tensor_elem_offset``
take an NDArray (and an axis) and return a Python int.  They read the DLTensor itself, not
the NDArray's Python attributes, so a descriptor edited through ``arr.handle[0]`` (a view
made by hand, as TVM's tests do) is seen as it is.  A DLTensor without strides is compact:
its strides are the row-major ones.  (TVM lowers these ops to small PrimFuncs that read the
same fields; ember's VM calls these functions instead.)
"""

from __future__ import annotations

from ..errors import ArgumentError
from ..ndarray import NDArray
from ..registry import register_func


def _dltensor(value, what: str):
    if not isinstance(value, NDArray):
        raise ArgumentError(f"{what}: expected a tensor, got {type(value).__name__}")
    return value._dltensor


def _axis(tensor, axis, what: str) -> int:
    axis = int(axis)
    if not 0 <= axis < tensor.ndim:
        raise ArgumentError(f"{what}: axis {axis} is out of range for a tensor of {tensor.ndim} "
                            f"dimensions (it must be in [0, {tensor.ndim}))")
    return axis


@register_func("vm.builtin.tensor_dtype_code", override=True)
def tensor_dtype_code(value) -> int:
    return int(_dltensor(value, "R.inspect.tensor_dtype_code").dtype.code)


@register_func("vm.builtin.tensor_dtype_bits", override=True)
def tensor_dtype_bits(value) -> int:
    return int(_dltensor(value, "R.inspect.tensor_dtype_bits").dtype.bits)


@register_func("vm.builtin.tensor_dtype_lanes", override=True)
def tensor_dtype_lanes(value) -> int:
    return int(_dltensor(value, "R.inspect.tensor_dtype_lanes").dtype.lanes)


@register_func("vm.builtin.tensor_ndim", override=True)
def tensor_ndim(value) -> int:
    return int(_dltensor(value, "R.inspect.tensor_ndim").ndim)


@register_func("vm.builtin.tensor_shape_i", override=True)
def tensor_shape_i(value, axis) -> int:
    what = "R.inspect.tensor_shape_i"
    tensor = _dltensor(value, what)
    return int(tensor.shape[_axis(tensor, axis, what)])


@register_func("vm.builtin.tensor_stride_i", override=True)
def tensor_stride_i(value, axis) -> int:
    what = "R.inspect.tensor_stride_i"
    tensor = _dltensor(value, what)
    axis = _axis(tensor, axis, what)
    if tensor.strides:
        return int(tensor.strides[axis])
    stride = 1
    for i in range(axis + 1, tensor.ndim):
        stride *= int(tensor.shape[i])
    return stride


@register_func("vm.builtin.tensor_byte_offset", override=True)
def tensor_byte_offset(value) -> int:
    return int(_dltensor(value, "R.inspect.tensor_byte_offset").byte_offset)


@register_func("vm.builtin.tensor_elem_offset", override=True)
def tensor_elem_offset(value) -> int:
    tensor = _dltensor(value, "R.inspect.tensor_elem_offset")
    element_bytes = (tensor.dtype.bits * tensor.dtype.lanes + 7) // 8
    return int(tensor.byte_offset) // element_bytes
