"""``relax.op.inspect`` (``R.inspect.*``): read a tensor's DLTensor fields at run time.

Each op takes a tensor (``tensor_shape_i`` / ``tensor_stride_i`` also an int64 axis) and
gives a scalar (``PrimStructInfo``) with TVM's dtypes: the dtype's type code and bits are
uint8, its lanes uint16, ``ndim`` int32, a dim or a stride int64, the byte and element
offsets uint64.  Where the tensor's struct info already says the answer (its dtype, its
ndim, a known dim at a constant axis) the struct info carries the value too.

``Expr.dtype.type_code`` / ``.bits`` / ``.lanes``, ``Expr.ndim``, ``Expr.shape[i]``,
``Expr.strides[i]``, ``Expr.byte_offset`` and ``Expr.elem_offset`` build these calls (the
proxies are at the end of this file).  LegalizeOps turns each call into a
``call_pure_packed`` of the VM builtin of the same name (``vm.builtin.tensor_dtype_code``
…, ``ember/runtime/vm/inspect_builtins.py``), which reads the array's DLTensor.
"""

from __future__ import annotations

from ember.ir import DataType, IntImm, PrimExpr

from ..expr import Call, Expr, PrimValue
from ..struct_info import PrimStructInfo, TensorStructInfo, shape_values
from .base import make_call, op_name, register, tensor_arg

__all__ = [
    "tensor_dtype_code", "tensor_dtype_bits", "tensor_dtype_lanes", "tensor_ndim",
    "tensor_shape_i", "tensor_stride_i", "tensor_byte_offset", "tensor_elem_offset",
]


def _known_dtype(call: Call) -> DataType | None:
    dtype = tensor_arg(call, 0).dtype
    return None if dtype is None or str(dtype) in ("", "void") else DataType(dtype)


def _dtype_field(field: str, result_dtype: str):
    def infer(call: Call, ctx) -> PrimStructInfo:
        dtype = _known_dtype(call)
        if dtype is None:
            return PrimStructInfo(result_dtype)
        return PrimStructInfo(result_dtype, IntImm(result_dtype, int(getattr(dtype, field))))

    return infer


def _infer_ndim(call: Call, ctx) -> PrimStructInfo:
    ndim = tensor_arg(call, 0).ndim
    return PrimStructInfo("int32") if ndim == -1 else PrimStructInfo("int32", IntImm("int32", ndim))


def _constant_axis(call: Call) -> int | None:
    """The axis argument's value when it is a constant; checked against the tensor's ndim."""
    if len(call.args) != 2:
        raise ValueError(f"{op_name(call)} expects a tensor and an axis, got {len(call.args)} arguments")
    axis_info = call.args[1].struct_info
    if not isinstance(axis_info, PrimStructInfo):
        raise TypeError(f"{op_name(call)}: the axis must be a PrimValue (R.Prim), "
                        f"got {type(axis_info).__name__}")
    if axis_info.dtype is not None and not DataType(axis_info.dtype).is_integer:
        raise TypeError(f"{op_name(call)}: the axis must be an integer, got dtype {axis_info.dtype}")
    value = axis_info.value
    if not isinstance(value, IntImm):
        return None
    axis = int(value.value)
    ndim = tensor_arg(call, 0).ndim
    if axis < 0 or (ndim != -1 and axis >= ndim):
        raise ValueError(f"{op_name(call)}: axis {axis} is out of range for a tensor of {ndim} "
                         f"dimensions (it must be in [0, {ndim}))" if ndim != -1 else
                         f"{op_name(call)}: axis {axis} must not be negative")
    return axis


def _infer_shape_i(call: Call, ctx) -> PrimStructInfo:
    axis = _constant_axis(call)
    dims = shape_values(tensor_arg(call, 0))
    if axis is not None and dims is not None:
        return PrimStructInfo("int64", dims[axis])
    return PrimStructInfo("int64")


def _infer_stride_i(call: Call, ctx) -> PrimStructInfo:
    _constant_axis(call)  # strides are a property of the run-time array: never known here
    return PrimStructInfo("int64")


def _offset(call: Call, ctx) -> PrimStructInfo:
    tensor_arg(call, 0)
    return PrimStructInfo("uint64")


_OPS = {
    "tensor_dtype_code": _dtype_field("type_code", "uint8"),
    "tensor_dtype_bits": _dtype_field("bits", "uint8"),
    "tensor_dtype_lanes": _dtype_field("lanes", "uint16"),
    "tensor_ndim": _infer_ndim,
    "tensor_shape_i": _infer_shape_i,
    "tensor_stride_i": _infer_stride_i,
    "tensor_byte_offset": _offset,
    "tensor_elem_offset": _offset,
}

for _name, _infer in _OPS.items():
    register("inspect." + _name, _infer,
             arg_names=("tensor", "axis") if _name.endswith("_i") else ("tensor",),
             FCallPacked="vm.builtin." + _name)


def _call(name: str, *args) -> Call:
    return make_call("inspect." + name, list(args))


def _axis(axis) -> Expr:
    if isinstance(axis, Expr):
        return axis
    if isinstance(axis, PrimExpr):
        return PrimValue(axis)
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"the axis must be an int, a PrimExpr or a Relax PrimValue, got {axis!r}")
    return PrimValue(IntImm("int64", axis))


def tensor_dtype_code(expr) -> Call:
    """The DLDataType type code of ``expr``'s dtype (0 int, 1 uint, 2 float, 4 bfloat …), uint8."""
    return _call("tensor_dtype_code", expr)


def tensor_dtype_bits(expr) -> Call:
    """The number of bits of one lane of ``expr``'s dtype, uint8."""
    return _call("tensor_dtype_bits", expr)


def tensor_dtype_lanes(expr) -> Call:
    """The number of lanes of ``expr``'s dtype (1 for scalars), uint16."""
    return _call("tensor_dtype_lanes", expr)


def tensor_ndim(expr) -> Call:
    """The number of dimensions of ``expr``, int32."""
    return _call("tensor_ndim", expr)


def tensor_shape_i(expr, axis) -> Call:
    """The extent of ``expr`` along ``axis`` (0 <= axis < ndim), int64."""
    return _call("tensor_shape_i", expr, _axis(axis))


def tensor_stride_i(expr, axis) -> Call:
    """The stride in elements of ``expr`` along ``axis`` (compact strides when the array
    has none), int64."""
    return _call("tensor_stride_i", expr, _axis(axis))


def tensor_byte_offset(expr) -> Call:
    """The DLTensor ``byte_offset`` of ``expr``, uint64."""
    return _call("tensor_byte_offset", expr)


def tensor_elem_offset(expr) -> Call:
    """The DLTensor ``byte_offset`` of ``expr`` in elements of its dtype, uint64."""
    return _call("tensor_elem_offset", expr)


# -- the proxies behind Expr.dtype / Expr.shape / Expr.strides (TVM's ExprWithOp) ------------

def check_tensor_operand(expr: Expr, what: str) -> None:
    """Refuse ``expr.<what>`` when ``expr`` is known not to be a tensor (an AttributeError,
    so ``hasattr`` stays False for shapes, tuples and scalars)."""
    sinfo = expr.struct_info_or_none()
    if sinfo is not None and not isinstance(sinfo, TensorStructInfo):
        raise AttributeError(f"{what} reads a tensor's DLTensor at run time; it is only defined for "
                             f"tensors, but {type(expr).__name__} has struct info {type(sinfo).__name__}")


class DLTensorDTypeProxy:
    """``expr.dtype``: ``.type_code``, ``.bits`` and ``.lanes`` of a tensor's run-time dtype."""

    def __init__(self, tensor: Expr):
        self.tensor = tensor

    @property
    def type_code(self) -> Call:
        return tensor_dtype_code(self.tensor)

    @property
    def bits(self) -> Call:
        return tensor_dtype_bits(self.tensor)

    @property
    def lanes(self) -> Call:
        return tensor_dtype_lanes(self.tensor)

    def __repr__(self) -> str:
        return f"DLTensorDTypeProxy({self.tensor!r})"


class _AxisProxy:
    _op = ""

    def __init__(self, tensor: Expr):
        self.tensor = tensor

    def __getitem__(self, axis) -> Call:
        return _call(self._op, self.tensor, _axis(axis))

    def __len__(self):
        raise TypeError(f"the number of dimensions of a Relax tensor is a run-time value: use "
                        f"{'.ndim'} (R.inspect.tensor_ndim) instead of len()")

    def __iter__(self):
        raise TypeError("a Relax tensor's run-time dims cannot be iterated; index them with "
                        "[axis] or use R.shape_of")


class DLTensorShapeProxy(_AxisProxy):
    """``expr.shape``: ``expr.shape[axis]`` is ``R.inspect.tensor_shape_i(expr, axis)``."""

    _op = "tensor_shape_i"


class DLTensorStridesProxy(_AxisProxy):
    """``expr.strides``: ``expr.strides[axis]`` is ``R.inspect.tensor_stride_i(expr, axis)``."""

    _op = "tensor_stride_i"
