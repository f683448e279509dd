"""matmul (batched, broadcasting batch dims, numpy's 1-D rules) and linear."""

from __future__ import annotations

from ember.ir import DataType

from .._arith import as_int, prove_equal
from ..expr import Call
from ..struct_info import TensorStructInfo, shape_values
from ._infer import binary_dtype, broadcast_shapes, tensor
from .attrs import MatmulAttrs
from .base import make_call, register, shape_str, tensor_arg

__all__ = ["matmul", "linear"]


def _infer_matmul(call: Call, ctx) -> TensorStructInfo:
    a, b = tensor_arg(call, 0), tensor_arg(call, 1)
    out_dtype = call.attrs.out_dtype or binary_dtype(call, a.dtype, b.dtype)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("relax.matmul: operands must have at least 1 dim, got a scalar")
    if a.ndim == -1 or b.ndim == -1:
        return tensor(None, out_dtype, a.vdevice, -1)
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    out_ndim = max(a.ndim, b.ndim) - a_vec - b_vec
    if a_vec and b_vec:
        out_ndim = 0
    va, vb = shape_values(a), shape_values(b)
    if va is None or vb is None:
        return tensor(None, out_dtype, a.vdevice, out_ndim)
    va = ((1,) + tuple(va)) if a_vec else tuple(va)
    vb = (tuple(vb) + (1,)) if b_vec else tuple(vb)
    k1, k2 = va[-1], vb[-2]
    ik1, ik2 = as_int(k1), as_int(k2)
    if ik1 is not None and ik2 is not None and ik1 != ik2:
        raise ValueError(
            f"relax.matmul: reduction dims differ: {shape_str(shape_values(a))} @ {shape_str(shape_values(b))} "
            f"({ik1} vs {ik2})"
        )
    if ik1 is None and ik2 is None and not prove_equal(k1, k2):
        pass  # symbolic reduction lengths are assumed equal, checked at run time
    batch_a = tensor(va[:-2], None)
    batch_b = tensor(vb[:-2], None)
    batch, _ = broadcast_shapes(call, batch_a, batch_b)
    out = list(batch or ())
    if not a_vec:
        out.append(va[-2])
    if not b_vec:
        out.append(vb[-1])
    return tensor(out, out_dtype, a.vdevice)


register("matmul", _infer_matmul, arg_names=("x1", "x2"))


def matmul(x1, x2, out_dtype=None) -> Call:
    """Matrix product with numpy's ``matmul`` semantics."""
    return make_call("matmul", [x1, x2], MatmulAttrs(None if out_dtype in (None, "", "void") else DataType(out_dtype)))


def linear(data, weight, bias=None, out_dtype=None):
    """``data @ weight.T + bias`` built from permute_dims, matmul and add (like TVM's)."""
    from .elementwise import add
    from .manipulate import permute_dims

    out = matmul(data, permute_dims(weight), out_dtype)
    return out if bias is None else add(out, bias)
