"""Operator plumbing: registering Relax ops, building their Calls, checking their arguments.

Each op is an ``ember.ir.Op`` named ``relax.<name>`` with the attribute
``FInferStructInfo(call, ctx) -> StructInfo`` (``ctx`` is the BlockBuilder, which may be
None), ``FPurity`` and ``arg_names`` (used in error messages).  ``make_call`` builds
the ``Call`` a user-facing function such as ``relax.op.add`` returns.
"""

from __future__ import annotations

import importlib

import numpy as np

from ember.ir import Op, PrimExpr, register_op

from ..expr import Call, Constant, Expr, PrimValue, ShapeExpr, StringImm, Tuple, const
from ..struct_info import (
    PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo,
)

__all__ = [
    "register", "make_call", "as_operand", "get_op_function", "arg_sinfo", "tensor_arg",
    "shape_str", "normalize_axis", "normalize_axes",
]


def register(name: str, infer, arg_names: tuple = (), purity: bool = True, **attrs) -> Op:
    """Register ``relax.<name>`` with its struct-info inference function."""
    full = name if name.startswith("relax.") else "relax." + name
    return register_op(full, FInferStructInfo=infer, FPurity=purity, arg_names=tuple(arg_names), **attrs)


def make_call(name: str, args, attrs=None, sinfo_args=()) -> Call:
    """A Call of the registered op ``relax.<name>`` with operands converted to Relax exprs."""
    op = Op.get("relax." + name)
    return Call(op, [as_operand(a) for a in args], attrs, sinfo_args)


def as_operand(x, like: Expr | None = None) -> Expr:
    """Convert Python values to Relax exprs: numbers and arrays → Constant, lists → Tuple,
    PrimExpr → PrimValue, str → StringImm.  Numbers take ``like``'s dtype when it is a tensor."""
    if isinstance(x, Expr):
        return x
    from ember.ir import GlobalVar

    if isinstance(x, GlobalVar):
        return x
    if isinstance(x, bool | int | float | np.generic) and like is not None:
        sinfo = like.struct_info_or_none()
        if isinstance(sinfo, TensorStructInfo) and sinfo.dtype is not None:
            return const(x, str(sinfo.dtype))
    if isinstance(x, bool | int | float | np.ndarray | np.generic):
        return const(x)
    if isinstance(x, PrimExpr):
        return PrimValue(x)
    if isinstance(x, str):
        return StringImm(x)
    if isinstance(x, list | tuple):
        return Tuple([as_operand(e) for e in x])
    if hasattr(x, "numpy"):
        return Constant(x)
    raise TypeError(f"cannot use {type(x).__name__} ({x!r}) as a Relax operand")


def get_op_function(name: str):
    """The user-facing builder ``relax.op.<name>`` (looked up lazily to avoid import cycles)."""
    mod = importlib.import_module("ember.relax.op")
    return getattr(mod, name)


# -- argument checks used by inference ------------------------------------------------

def _op_name(call: Call) -> str:
    return getattr(call.op, "name", str(call.op))


def _arg_name(call: Call, i: int) -> str:
    names = call.op.get_attr("arg_names", ()) if isinstance(call.op, Op) else ()
    return names[i] if i < len(names) else f"argument {i}"


def arg_sinfo(call: Call, i: int) -> StructInfo:
    if i >= len(call.args):
        raise ValueError(f"{_op_name(call)} expects at least {i + 1} arguments, got {len(call.args)}")
    return call.args[i].struct_info


def tensor_arg(call: Call, i: int) -> TensorStructInfo:
    """The TensorStructInfo of argument ``i``; a clear error when it is not a tensor."""
    sinfo = arg_sinfo(call, i)
    if not isinstance(sinfo, TensorStructInfo):
        raise TypeError(
            f"{_op_name(call)}: {_arg_name(call, i)} must be a Tensor, got {type(sinfo).__name__}"
        )
    return sinfo


def tensor_args(call: Call) -> list[TensorStructInfo]:
    return [tensor_arg(call, i) for i in range(len(call.args))]


def tuple_of_tensors(call: Call, i: int) -> list[TensorStructInfo]:
    sinfo = arg_sinfo(call, i)
    if not isinstance(sinfo, TupleStructInfo):
        raise TypeError(f"{_op_name(call)}: {_arg_name(call, i)} must be a tuple of tensors, got {type(sinfo).__name__}")
    for j, f in enumerate(sinfo.fields):
        if not isinstance(f, TensorStructInfo):
            raise TypeError(f"{_op_name(call)}: field {j} of {_arg_name(call, i)} must be a Tensor, got {type(f).__name__}")
    return list(sinfo.fields)


def shape_arg(call: Call, i: int) -> tuple | None:
    """Values of a shape argument (ShapeExpr or shape-typed expr), None when only ndim is known."""
    arg = call.args[i]
    if isinstance(arg, ShapeExpr):
        return arg.values
    sinfo = arg.struct_info
    if isinstance(sinfo, ShapeStructInfo):
        return sinfo.values
    raise TypeError(f"{_op_name(call)}: {_arg_name(call, i)} must be a shape, got {type(sinfo).__name__}")


def shape_str(values) -> str:
    """Render a tuple of dims like ``(n, 4)`` for error messages."""
    if values is None:
        return "(?)"

    def one(v):
        return str(v.value) if hasattr(v, "value") and isinstance(v.value, int) else _dim_str(v)

    inner = ", ".join(one(v) for v in values)
    return f"({inner},)" if len(values) == 1 else f"({inner})"


def _dim_str(v) -> str:
    name = getattr(v, "name", None)
    if name is not None:
        return name
    try:
        from ember.script.printer import to_script

        return to_script(v)
    except Exception:  # noqa: BLE001
        return type(v).__name__


def normalize_axis(call_or_name, axis: int, ndim: int) -> int:
    """``axis`` in ``[-ndim, ndim)`` as a non-negative index; error naming the op otherwise."""
    name = call_or_name if isinstance(call_or_name, str) else _op_name(call_or_name)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: axis {axis} is out of range for a tensor of {ndim} dims")
    return axis + ndim if axis < 0 else axis


def normalize_axes(call, axes, ndim: int) -> list[int]:
    out = [normalize_axis(call, a, ndim) for a in axes]
    if len(set(out)) != len(out):
        raise ValueError(f"{_op_name(call)}: repeated axes in {list(axes)}")
    return out


def prim_arg_value(call: Call, i: int):
    """The PrimExpr carried by a PrimValue argument (or None when unknown)."""
    sinfo = arg_sinfo(call, i)
    if not isinstance(sinfo, PrimStructInfo):
        raise TypeError(f"{_op_name(call)}: {_arg_name(call, i)} must be a PrimValue, got {type(sinfo).__name__}")
    return sinfo.value


def op_name(call: Call) -> str:
    return _op_name(call)
