"""Shared helpers of the legalisation tables: the legaliser signature, ``call_te`` with a
kernel name taken from the op, scalar constants, and attribute conversions.

A legaliser is ``fn(bb: BlockBuilder, call: Call) -> Expr``: it receives a normalised
call (struct info known) and returns the expression replacing it, normally the
``call_tir`` that ``bb.call_te`` builds from a TE/topi function.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ember.ir import DataType, PrimExpr, const

from ...expr import Call, Constant, Expr, PrimValue
from ...struct_info import TensorStructInfo, TupleStructInfo, shape_values

__all__ = [
    "Legalizer", "register_legalize", "kernel_name", "TVM_KERNEL_NAMES", "emit_te", "scalar_or_tensor", "out_dtype", "out_shape",
    "int_tuple",
]

Legalizer = Callable[[object, Call], Expr]


def register_legalize(op_name: str, legal_func: Legalizer | None = None):
    """Set ``legal_func`` as the legaliser of ``op_name`` (TVM's decorator; it takes
    precedence over the built-in tables)."""
    from ember.ir import Op

    def register(func: Legalizer) -> Legalizer:
        Op.get(op_name).set_attr("FLegalize", func, override=True)
        return func

    return register(legal_func) if legal_func is not None else register


# Where TVM's legaliser calls a topi function of another name, its kernel carries that
# name (people diff legalized modules against TVM's, and FuseOps builds names from them).
TVM_KERNEL_NAMES = {
    "full_like": "full", "zeros_like": "zeros", "ones_like": "ones", "astype": "cast",
    "flatten": "reshape", "concat": "concatenate", "permute_dims": "transpose",
    "collapse_sum_to": "collapse_sum", "collapse_sum_like": "collapse_sum",
    "leakyrelu": "leaky_relu",
}


def kernel_name(call: Call) -> str:
    """The PrimFunc name for ``call``: the op's last name component (``relax.nn.conv2d`` →
    ``conv2d``), or the name TVM's kernel has where it differs (``TVM_KERNEL_NAMES``)."""
    name = call.op.name.rsplit(".", 1)[-1]
    return TVM_KERNEL_NAMES.get(name, name)


def emit_te(bb, call: Call, fn, *args, **kwargs) -> Expr:
    """``bb.call_te(fn, …)`` named after the op, keeping ``call``'s own struct info.

    The output struct info of the ``call_tir`` is the inferred one of ``call`` (same
    symbolic expressions), so the rewrite never changes a binding's type.
    """
    kwargs.setdefault("primfunc_name_hint", kernel_name(call))
    new = bb.call_te(fn, *args, **kwargs)
    sinfo = call.struct_info_or_none()
    if isinstance(sinfo, TensorStructInfo | TupleStructInfo) and len(new.sinfo_args) == 1:
        from ember.ir import replace

        fields = sinfo.fields if isinstance(sinfo, TupleStructInfo) else (sinfo,)
        if all(isinstance(f, TensorStructInfo) and f.shape is not None for f in fields):
            new = replace(new, sinfo_args=(sinfo,))
    return new


def scalar_or_tensor(arg: Expr):
    """A 0-d constant becomes a TIR constant (folded into the kernel), a PrimValue its
    PrimExpr; anything else stays."""
    if isinstance(arg, PrimValue):
        return arg.value
    if isinstance(arg, Constant):
        value = arg.numpy()
        if value.ndim == 0:
            dtype = "bool" if value.dtype == np.bool_ else str(value.dtype)
            return const(value.item(), dtype)
    return arg


def out_dtype(call: Call) -> str:
    """The dtype of ``call``'s (tensor) result."""
    return str(call.struct_info.dtype)


def out_shape(call: Call) -> list[PrimExpr]:
    """The inferred shape of ``call``'s tensor result (symbolic dims included)."""
    values = shape_values(call.struct_info)
    if values is None:
        raise ValueError(f"LegalizeOps: {call.op.name} needs a result of known shape, got {call.struct_info}")
    return list(values)


def int_tuple(values) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


def dtype_or(dtype: DataType | None, default: str) -> str:
    return default if dtype is None else str(dtype)
