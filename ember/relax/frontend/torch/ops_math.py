"""Elementwise math converters: unary functions, binary arithmetic (Tensor and Scalar
overloads, in-place variants), comparisons, logical and bitwise ops, clamp, where."""

from __future__ import annotations

from ember.relax import op as R

from .registry import converter

_UNARY = {
    "abs": R.abs, "acos": R.acos, "acosh": R.acosh, "asin": R.asin, "asinh": R.asinh, "atan": R.atan,
    "atanh": R.atanh, "bitwise_not": R.bitwise_not, "ceil": R.ceil, "cos": R.cos, "cosh": R.cosh,
    "erf": R.erf, "exp": R.exp, "floor": R.floor, "log": R.log, "log1p": R.log1p, "neg": R.negative,
    "round": R.round, "rsqrt": R.rsqrt, "sigmoid": R.sigmoid, "sign": R.sign, "sin": R.sin, "sinh": R.sinh,
    "sqrt": R.sqrt, "square": R.square, "tan": R.tan, "tanh": R.tanh, "trunc": R.trunc, "isnan": R.isnan,
    "isinf": R.isinf, "isfinite": R.isfinite, "logical_not": R.logical_not, "fix": R.trunc,
}

_FLOAT_ONLY = {"acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "erf", "exp", "log", "log1p",
               "rsqrt", "sigmoid", "sin", "sinh", "sqrt", "tan", "tanh"}


def _unary(name: str, fn):
    def convert(ctx, x, *_):
        if name in _FLOAT_ONLY and not ctx.dtype(x).startswith(("float", "bfloat")):
            x = ctx.operand(x, ctx.out_dtype())
        return fn(x)

    convert.__name__ = name
    return convert


for _name, _fn in _UNARY.items():
    converter(f"aten.{_name}.default", f"aten.{_name}_.default")(_unary(_name, _fn))


@converter("aten.reciprocal.default", "aten.reciprocal_.default")
def reciprocal(ctx, x):
    dtype = ctx.out_dtype()
    return R.divide(ctx.const(1, dtype), ctx.operand(x, dtype))


@converter("aten.expm1.default")
def expm1(ctx, x):
    dtype = ctx.out_dtype()
    return R.subtract(R.exp(ctx.operand(x, dtype)), ctx.const(1, dtype))


@converter("aten.log2.default", "aten.log10.default")
def log_base(ctx, x):
    import math

    dtype = ctx.out_dtype()
    base = 2.0 if "log2" in str(ctx.node.target) else 10.0
    return R.divide(ctx.emit(R.log(ctx.operand(x, dtype))), ctx.const(math.log(base), dtype))


@converter("aten.exp2.default")
def exp2(ctx, x):
    dtype = ctx.out_dtype()
    return R.power(ctx.const(2.0, dtype), ctx.operand(x, dtype))


@converter("aten.frac.default")
def frac(ctx, x):
    return R.subtract(x, ctx.emit(R.trunc(x)))


# -- binary arithmetic ---------------------------------------------------------------------

def _binary(fn, *, compute_in_out_dtype: bool = True):
    def convert(ctx, a, b, *rest):
        dtype = ctx.out_dtype() if compute_in_out_dtype else _promoted(ctx, a, b)
        return fn(ctx.operand(a, dtype), ctx.operand(b, dtype))

    return convert


def _promoted(ctx, a, b) -> str:
    """The dtype torch computes a comparison in (tensor dtype wins over a Python scalar)."""
    import torch

    from .importer import torch_dtype

    def as_torch(x):
        if hasattr(x, "struct_info"):
            return torch.empty((), dtype=getattr(torch, ctx.dtype(x)))
        return x if isinstance(x, bool | int | float) else 0

    ta, tb = as_torch(a), as_torch(b)
    if not isinstance(ta, torch.Tensor) and not isinstance(tb, torch.Tensor):
        return "float32"
    return torch_dtype(torch.result_type(ta, tb))


def _with_alpha(fn):
    def convert(ctx, a, b, alpha=1):
        dtype = ctx.out_dtype()
        b = ctx.operand(b, dtype)
        if alpha is not None and alpha != 1:
            b = ctx.emit(R.multiply(b, ctx.const(alpha, dtype)))
        return fn(ctx.operand(a, dtype), b)

    return convert


for _name, _fn in (("add", R.add), ("sub", R.subtract)):
    converter(f"aten.{_name}.Tensor", f"aten.{_name}.Scalar", f"aten.{_name}_.Tensor",
              f"aten.{_name}_.Scalar")(_with_alpha(_fn))
converter("aten.rsub.Scalar", "aten.rsub.Tensor")(_with_alpha(lambda a, b: R.subtract(b, a)))

_ARITH = {
    "mul": R.multiply, "div": R.divide, "maximum": R.maximum, "minimum": R.minimum, "remainder": R.floor_mod, "fmod": R.mod, "floor_divide": R.floor_divide,
    "bitwise_and": R.bitwise_and, "bitwise_or": R.bitwise_or, "bitwise_xor": R.bitwise_xor,
    "__and__": R.bitwise_and, "__or__": R.bitwise_or, "__xor__": R.bitwise_xor,
    "logical_and": R.logical_and, "logical_or": R.logical_or, "logical_xor": R.logical_xor,
    "bitwise_left_shift": R.left_shift, "bitwise_right_shift": R.right_shift,
    "__lshift__": R.left_shift, "__rshift__": R.right_shift,
}
for _name, _fn in _ARITH.items():
    converter(*(f"aten.{_name}{sfx}.{ov}" for sfx in ("", "_") for ov in ("Tensor", "Scalar", "default",
                                                                          "Self", "Tensor_Scalar")))(
        _binary(_fn, compute_in_out_dtype=not _name.startswith("logical")))


def _ignoring_nan(fn):
    """fmax/fmin: a NaN operand yields the other one (NaN only when both are)."""

    def convert(ctx, a, b):
        dtype = ctx.out_dtype()
        a, b = ctx.operand(a, dtype), ctx.operand(b, dtype)
        out = ctx.emit(fn(a, b))
        if not dtype.startswith(("float", "bfloat")):
            return out
        out = ctx.emit(R.where(ctx.emit(R.isnan(b)), a, out))
        return R.where(ctx.emit(R.isnan(a)), b, out)

    return convert


for _name, _fn in (("fmax", R.maximum), ("fmin", R.minimum)):
    converter(*(f"aten.{_name}{sfx}.{ov}" for sfx in ("", "_") for ov in ("Tensor", "Scalar", "default", "Self",
                                                                          "Tensor_Scalar")))(_ignoring_nan(_fn))


@converter("aten.div.Tensor_mode", "aten.div.Scalar_mode", "aten.div_.Tensor_mode", "aten.div_.Scalar_mode")
def div_mode(ctx, a, b, rounding_mode=None):
    dtype = ctx.out_dtype()
    if rounding_mode == "floor":
        return R.floor_divide(ctx.operand(a, dtype), ctx.operand(b, dtype))
    if rounding_mode == "trunc":
        if dtype.startswith(("int", "uint")):
            return R.divide(ctx.operand(a, dtype), ctx.operand(b, dtype))
        return R.trunc(ctx.emit(R.divide(ctx.operand(a, dtype), ctx.operand(b, dtype))))
    return R.divide(ctx.operand(a, dtype), ctx.operand(b, dtype))


@converter("aten.pow.Tensor_Tensor", "aten.pow.Tensor_Scalar", "aten.pow.Scalar", "aten.pow_.Scalar",
           "aten.pow_.Tensor")
def pow_(ctx, a, b):
    dtype = ctx.out_dtype()
    if isinstance(b, int | float) and not isinstance(b, bool):
        if b == 2:
            return R.multiply(ctx.operand(a, dtype), ctx.operand(a, dtype))
        if b == 0.5:
            return R.sqrt(ctx.operand(a, dtype))
    return R.power(ctx.operand(a, dtype), ctx.operand(b, dtype))


@converter("aten.atan2.default", "aten.atan2.out")
def atan2(ctx, a, b):
    # atan2(y, x) = 2 * atan(y / (sqrt(x^2 + y^2) + x)), with the x<0, y=0 branch fixed up
    dtype = ctx.out_dtype()
    y, x = ctx.operand(a, dtype), ctx.operand(b, dtype)
    r = ctx.emit(R.sqrt(ctx.emit(R.add(ctx.emit(R.multiply(x, x)), ctx.emit(R.multiply(y, y))))))
    half = ctx.emit(R.atan(ctx.emit(R.divide(y, ctx.emit(R.add(r, x))))))
    main = ctx.emit(R.multiply(half, ctx.const(2.0, dtype)))
    pi = ctx.const(3.141592653589793, dtype)
    on_neg_axis = ctx.emit(R.logical_and(ctx.emit(R.less_equal(x, ctx.const(0, dtype))),
                                         ctx.emit(R.equal(y, ctx.const(0, dtype)))))
    neg_branch = ctx.emit(R.where(ctx.emit(R.less(x, ctx.const(0, dtype))), pi, ctx.const(0, dtype)))
    return R.where(on_neg_axis, neg_branch, main)


# -- comparisons ----------------------------------------------------------------------------

_COMPARE = {"eq": R.equal, "ne": R.not_equal, "lt": R.less, "le": R.less_equal, "gt": R.greater,
            "ge": R.greater_equal}
for _name, _fn in _COMPARE.items():
    converter(f"aten.{_name}.Tensor", f"aten.{_name}.Scalar", f"aten.{_name}_.Tensor",
              f"aten.{_name}_.Scalar")(_binary(_fn, compute_in_out_dtype=False))


@converter("aten.clamp.default", "aten.clamp_.default", "aten.clamp.Tensor", "aten.clip.default",
           "aten.clip_.default", "aten.clamp_min.default", "aten.clamp_max.default")
def clamp(ctx, x, lo=None, hi=None):
    key = str(ctx.node.target)
    if "clamp_max" in key:
        lo, hi = None, lo
    dtype = ctx.out_dtype()
    x = ctx.operand(x, dtype)
    if lo is not None:
        x = ctx.emit(R.maximum(x, ctx.operand(lo, dtype)))
    if hi is not None:
        x = ctx.emit(R.minimum(x, ctx.operand(hi, dtype)))
    return x


@converter("aten.where.self", "aten.where.ScalarSelf", "aten.where.ScalarOther", "aten.where.Scalar")
def where(ctx, cond, a, b):
    dtype = ctx.out_dtype()
    return R.where(ctx.operand(cond, "bool"), ctx.operand(a, dtype), ctx.operand(b, dtype))


@converter("aten.masked_fill.Scalar", "aten.masked_fill.Tensor", "aten.masked_fill_.Scalar",
           "aten.masked_fill_.Tensor")
def masked_fill(ctx, x, mask, value):
    dtype = ctx.dtype(x)
    return R.where(ctx.operand(mask, "bool"), ctx.operand(value, dtype), x)


@converter("aten.lerp.Scalar", "aten.lerp.Tensor")
def lerp(ctx, a, b, w):
    dtype = ctx.out_dtype()
    a, b = ctx.operand(a, dtype), ctx.operand(b, dtype)
    return R.add(a, ctx.emit(R.multiply(ctx.operand(w, dtype), ctx.emit(R.subtract(b, a)))))


@converter("aten.addcmul.default", "aten.addcdiv.default")
def addc(ctx, x, t1, t2, value=1):
    dtype = ctx.out_dtype()
    fn = R.multiply if "addcmul" in str(ctx.node.target) else R.divide
    prod = ctx.emit(fn(ctx.operand(t1, dtype), ctx.operand(t2, dtype)))
    if value != 1:
        prod = ctx.emit(R.multiply(prod, ctx.const(value, dtype)))
    return R.add(ctx.operand(x, dtype), prod)
