"""matmul (batched, broadcasting batch dims, numpy's 1-D rules) and linear."""

from __future__ import annotations

from ember.ir import DataType

from .._arith import as_int, prove_equal
from ..expr import Call
from ..struct_info import TensorStructInfo, shape_values
from ._infer import binary_dtype, broadcast_shapes, tensor
from .attrs import EinsumAttrs, MatmulAttrs
from .base import make_call, register, shape_str, tensor_arg, tuple_of_tensors

__all__ = ["matmul", "linear", "einsum"]


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


def _infer_einsum(call: Call, ctx) -> TensorStructInfo:
    infos = tuple_of_tensors(call, 0)
    spec = call.attrs.subscripts.replace(" ", "")
    if "..." in spec:
        raise ValueError("relax.einsum: ellipsis ('...') subscripts are not supported yet")
    lhs, arrow, rhs = spec.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != len(infos):
        raise ValueError(f"relax.einsum: subscripts {spec!r} name {len(inputs)} operands, got {len(infos)}")
    dtypes = {str(i.dtype) for i in infos if i.dtype is not None}
    if len(dtypes) > 1:
        raise TypeError(f"relax.einsum: operand dtypes must match, got {sorted(dtypes)}")
    dtype = infos[0].dtype
    if not arrow:  # implicit output: letters seen once, sorted
        letters = "".join(inputs)
        rhs = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    sizes: dict = {}
    for sub, info in zip(inputs, infos):
        values = shape_values(info)
        if info.ndim != -1 and info.ndim != len(sub):
            raise ValueError(f"relax.einsum: operand {sub!r} has {len(sub)} letters but {info.ndim} dims")
        if values is None:
            return tensor(None, dtype, infos[0].vdevice, len(rhs))
        for c, d in zip(sub, values):
            prev = sizes.get(c)
            if prev is None or as_int(prev) == 1:
                sizes[c] = d
            elif as_int(d) not in (None, 1) and as_int(prev) is not None and as_int(prev) != as_int(d):
                raise ValueError(f"relax.einsum: letter {c!r} has sizes {as_int(prev)} and {as_int(d)}")
    missing = [c for c in rhs if c not in sizes]
    if missing:
        raise ValueError(f"relax.einsum: output letters {missing} do not appear in the inputs")
    return tensor([sizes[c] for c in rhs], dtype, infos[0].vdevice)


register("einsum", _infer_einsum, arg_names=("operands",))


def einsum(operands, subscripts: str) -> Call:
    """Einstein summation over a tuple of tensors, e.g. ``einsum((a, b), "ij,jk->ik")``."""
    return make_call("einsum", [operands], EinsumAttrs(str(subscripts)))
