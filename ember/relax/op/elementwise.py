"""Elementwise operators: unary math, binary arithmetic and comparisons (with numpy
broadcasting over symbolic shapes), ``where``, ``clip`` and ``astype``.

Ops are declared as tables (name → rule) and registered by one loop.  Each name becomes
``relax.<name>`` and a builder function in this module's namespace.
"""

from __future__ import annotations

from ember.ir import DataType

from ..expr import Call
from ..struct_info import TensorStructInfo
from ._infer import as_tensor_sinfo, binary_dtype, broadcast_many, broadcast_shapes, tensor
from .attrs import AstypeAttrs, ClipAttrs
from .base import make_call, op_name, register, tensor_arg

__all__: list[str] = ["where", "astype", "clip", "wrap_param"]

BOOL = DataType("bool")

# name → (needs float input, output dtype: None = same as input, else a fixed dtype)
UNARY_OPS: dict[str, tuple[bool, str | None]] = {
    "abs": (False, None), "negative": (False, None), "sign": (False, None),
    "square": (False, None), "floor": (False, None), "ceil": (False, None),
    "round": (False, None), "trunc": (False, None), "bitwise_not": (False, None),
    "exp": (True, None), "log": (True, None), "sqrt": (True, None), "rsqrt": (True, None),
    "sin": (True, None), "cos": (True, None), "tan": (True, None), "sinh": (True, None),
    "cosh": (True, None), "tanh": (True, None), "asin": (True, None), "acos": (True, None),
    "atan": (True, None), "asinh": (True, None), "acosh": (True, None), "atanh": (True, None),
    "erf": (True, None), "sigmoid": (True, None), "log1p": (True, None),
    "isnan": (False, "bool"), "isinf": (False, "bool"), "isfinite": (False, "bool"),
    "logical_not": (False, "bool"),
}

# name → output dtype (None: same as the operands)
BINARY_OPS: dict[str, str | None] = {
    "add": None, "subtract": None, "multiply": None, "divide": None, "floor_divide": None,
    "power": None, "maximum": None, "minimum": None, "mod": None, "floor_mod": None,
    "bitwise_and": None, "bitwise_or": None, "bitwise_xor": None,
    "left_shift": None, "right_shift": None,
    "equal": "bool", "not_equal": "bool", "less": "bool", "less_equal": "bool",
    "greater": "bool", "greater_equal": "bool",
    "logical_and": "bool", "logical_or": "bool", "logical_xor": "bool",
}


def _unary_rule(needs_float: bool, out_dtype: str | None):
    def infer(call: Call, ctx) -> TensorStructInfo:
        x = tensor_arg(call, 0)
        if needs_float and x.dtype is not None and not x.dtype.is_float:
            raise TypeError(f"{op_name(call)} needs a float tensor, got dtype {x.dtype}")
        dtype = out_dtype if out_dtype is not None else x.dtype
        return TensorStructInfo(x.shape, dtype, x.vdevice, x.ndim)

    return infer


def _binary_rule(out_dtype: str | None):
    def infer(call: Call, ctx) -> TensorStructInfo:
        a, b = as_tensor_sinfo(call, 0), as_tensor_sinfo(call, 1)
        dtype = binary_dtype(call, a.dtype, b.dtype)
        if out_dtype is not None:
            dtype = out_dtype
        values, ndim = broadcast_shapes(call, a, b)
        return tensor(values, dtype, a.vdevice or b.vdevice, ndim)

    return infer


def _unary_builder(name: str):
    def build(x):
        return make_call(name, [x])

    build.__name__ = name
    build.__doc__ = f"Elementwise ``{name}``."
    return build


def _binary_builder(name: str):
    def build(x1, x2):
        from .base import as_operand

        if not hasattr(x1, "struct_info_or_none"):
            x1 = as_operand(x1, like=x2 if hasattr(x2, "struct_info_or_none") else None)
        x2 = as_operand(x2, like=x1)
        return make_call(name, [x1, x2])

    build.__name__ = name
    build.__doc__ = f"Elementwise ``{name}`` with numpy broadcasting."
    return build


for _name, (_needs_float, _out) in UNARY_OPS.items():
    register(_name, _unary_rule(_needs_float, _out), arg_names=("x",))
    globals()[_name] = _unary_builder(_name)
    __all__.append(_name)

for _name, _out in BINARY_OPS.items():
    register(_name, _binary_rule(_out), arg_names=("x1", "x2"))
    globals()[_name] = _binary_builder(_name)
    __all__.append(_name)


# -- where -------------------------------------------------------------------------

def _infer_where(call: Call, ctx) -> TensorStructInfo:
    cond, a, b = (as_tensor_sinfo(call, i) for i in range(3))
    if cond.dtype is not None and not cond.dtype.is_bool:
        raise TypeError(f"relax.where: condition must be a bool tensor, got dtype {cond.dtype}")
    dtype = binary_dtype(call, a.dtype, b.dtype)
    values, ndim = broadcast_many(call, [cond, a, b])
    return tensor(values, dtype, a.vdevice, ndim)


register("where", _infer_where, arg_names=("condition", "x1", "x2"))


def where(condition, x1, x2) -> Call:
    """``x1`` where ``condition`` holds, else ``x2`` (broadcasting)."""
    return make_call("where", [condition, x1, x2])


# -- clip, astype -------------------------------------------------------------------

def _infer_same(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    return TensorStructInfo(x.shape, x.dtype, x.vdevice, x.ndim)


register("clip", _infer_same, arg_names=("x",))


def clip(x, min, max) -> Call:  # noqa: A002 - TVM's names
    """Clamp ``x`` to ``[min, max]``."""
    return make_call("clip", [x], ClipAttrs(float(min), float(max)))


def _infer_astype(call: Call, ctx) -> TensorStructInfo:
    x = tensor_arg(call, 0)
    return TensorStructInfo(x.shape, call.attrs.dtype, x.vdevice, x.ndim)


register("astype", _infer_astype, arg_names=("x",))


def astype(x, dtype) -> Call:
    """Cast ``x`` to ``dtype``."""
    return make_call("astype", [x], AstypeAttrs(DataType(dtype)))


def wrap_param(data, dtype="float32") -> Call:
    """Cast a constant parameter to ``dtype`` (TVM's ``wrap_param``)."""
    return astype(data, dtype)


