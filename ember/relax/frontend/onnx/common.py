"""Helpers shared by the ONNX importer and its converter families: ONNX element types to
ember dtypes, attribute decoding, static shape/dtype queries on Relax expressions,
constants, and axis normalisation."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import numpy_helper

from ember import tir
from ember.ir import IntImm

from ...expr import Constant, Expr
from ...struct_info import TensorStructInfo, shape_values

__all__ = [
    "OpNotImplemented", "ONNXImportError", "onnx_dtype", "decode_attrs", "tensor_to_numpy",
    "sinfo", "dtype_of", "ndim_of", "shape_of", "static_shape", "int_list", "norm_axis",
    "norm_axes", "np_dtype",
]


class OpNotImplemented(NotImplementedError):
    """The model uses operators (or opset versions of them) the importer cannot convert."""


class ONNXImportError(ValueError):
    """The model is malformed, or a node cannot be converted as given."""


def onnx_dtype(elem_type: int) -> str:
    """The ember dtype name of an ONNX ``TensorProto`` element type."""
    if elem_type == onnx.TensorProto.BFLOAT16:
        return "bfloat16"
    if elem_type in (onnx.TensorProto.UNDEFINED, onnx.TensorProto.STRING):
        raise ONNXImportError(
            f"element type {onnx.TensorProto.DataType.Name(elem_type)} is not supported")
    return str(np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type)))


def np_dtype(dtype: str):
    """The numpy dtype of an ember dtype name (bfloat16 through ml_dtypes)."""
    if dtype == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(dtype)


def tensor_to_numpy(tensor: onnx.TensorProto, base_dir: str | None = None) -> np.ndarray:
    """A TensorProto's value (external data read from ``base_dir``)."""
    if tensor.data_location == onnx.TensorProto.EXTERNAL and base_dir is not None:
        onnx.external_data_helper.load_external_data_for_tensor(tensor, base_dir)
    arr = numpy_helper.to_array(tensor)
    if tensor.data_type == onnx.TensorProto.BFLOAT16 and arr.dtype != np_dtype("bfloat16"):
        arr = arr.astype(np_dtype("bfloat16"))
    return arr


def decode_attrs(node: onnx.NodeProto) -> dict:
    """The node's attributes as Python values (see ``registry`` for the conventions)."""
    out = {}
    for attr in node.attribute:
        value = onnx.helper.get_attribute_value(attr)
        if isinstance(value, bytes):
            value = value.decode("utf-8")
        elif isinstance(value, onnx.TensorProto):
            value = tensor_to_numpy(value)
        elif isinstance(value, list) and value and isinstance(value[0], bytes):
            value = [v.decode("utf-8") for v in value]
        elif isinstance(value, list) and value and isinstance(value[0], onnx.TensorProto):
            value = [tensor_to_numpy(v) for v in value]
        out[attr.name] = value
    return out


def sinfo(expr: Expr):
    return expr.struct_info


def dtype_of(expr: Expr) -> str | None:
    s = expr.struct_info
    if isinstance(s, TensorStructInfo) and s.dtype is not None:
        return str(s.dtype)
    return None


def ndim_of(expr: Expr) -> int:
    s = expr.struct_info
    return s.ndim if isinstance(s, TensorStructInfo) else -1


def shape_of(expr: Expr) -> list | None:
    """The shape as a list of ints (static dims) and PrimExprs (symbolic), or ``None``."""
    s = expr.struct_info
    values = shape_values(s) if isinstance(s, TensorStructInfo) else None
    if values is None:
        return None
    return [int(v.value) if isinstance(v, IntImm) else v for v in values]


def static_shape(expr: Expr) -> tuple[int, ...] | None:
    """The shape when every dim is a known int, else ``None``."""
    dims = shape_of(expr)
    if dims is None or not all(isinstance(d, int) for d in dims):
        return None
    return tuple(dims)


def int_list(value) -> list[int]:
    return [int(v) for v in np.asarray(value).reshape(-1)]


def norm_axis(axis: int, ndim: int, what: str = "axis") -> int:
    if not -ndim <= axis < max(ndim, 1):
        raise ONNXImportError(f"{what} {axis} is out of range for a tensor of rank {ndim}")
    return axis + ndim if axis < 0 else axis


def norm_axes(axes, ndim: int) -> list[int]:
    return [norm_axis(int(a), ndim) for a in axes]


def is_const(expr: Expr | None) -> bool:
    return isinstance(expr, Constant)


def prim_dim(d) -> tir.PrimExpr:
    from ember.ir import const

    return const(d, "int64") if isinstance(d, int) else d
