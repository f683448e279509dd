"""Values and expressions for the reference interpreter: numpy values of each dtype and
the table (``EXPR``) of compilers turning expression nodes into closures ``env → value``."""

from __future__ import annotations

import math

import numpy as np

from ember.ir import DataType, FloatImm, IntImm, StringImm, Var

__all__ = ["InterpreterError", "register_extern", "compile_expr", "EXPR", "typed", "np_dtype"]


class InterpreterError(RuntimeError):
    """A TIR program did something the interpreter cannot or must not do."""


_EXTERNS: dict = {}


def register_extern(name: str, fn) -> None:
    """Make ``call_extern(name, ...)`` / ``call_pure_extern`` call the Python ``fn``."""
    _EXTERNS[name] = fn


_NP_DTYPES: dict = {}


def np_dtype(dtype: DataType):
    """The numpy dtype of one lane of ``dtype`` (cached: this is on every hot path)."""
    t = _NP_DTYPES.get(dtype)
    if t is None:
        t = _NP_DTYPES[dtype] = dtype.numpy()
    return t


def typed(value, dtype: DataType):
    """``value`` as a numpy value of ``dtype`` (array for vectors)."""
    t = np_dtype(dtype)
    if dtype.lanes > 1 or isinstance(value, np.ndarray):
        return np.asarray(value).astype(t)
    if type(value) is t.type:
        return value
    return np.asarray(value).astype(t)[()]


# -- expressions --------------------------------------------------------------------


def _const(e):
    value = typed(e.value, e.dtype)
    return lambda env: value


def _var(e):
    def get(env):
        try:
            return env[e]
        except KeyError:
            raise InterpreterError(f"variable {e.name!r} ({e.dtype}) is not bound") from None

    return get


def _trunc_div(a, b):
    if np.any(np.asarray(b) == 0):
        raise InterpreterError("integer division by zero")
    q = np.floor_divide(a, b)
    fix = (np.mod(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
    return q + fix.astype(q.dtype) if isinstance(q, np.ndarray) else (q + 1 if fix else q)


def _int_checked(fn):
    def op(a, b):
        if np.any(np.asarray(b) == 0):
            raise InterpreterError("integer division by zero")
        return fn(a, b)

    return op


def _float_floordiv(a, b):
    return np.floor(a / b)


_ARITH_FLOAT = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide,
    "Mod": np.fmod, "FloorDiv": _float_floordiv, "FloorMod": np.mod,
    "Min": np.minimum, "Max": np.maximum,
}
_ARITH_INT = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": _trunc_div,
    "Mod": _int_checked(np.fmod), "FloorDiv": _int_checked(np.floor_divide),
    "FloorMod": _int_checked(np.mod), "Min": np.minimum, "Max": np.maximum,
}
_COMPARE = {
    "EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
    "GT": np.greater, "GE": np.greater_equal, "And": np.logical_and, "Or": np.logical_or,
}


def _binary(e):
    name = type(e).__name__
    fa, fb = compile_expr(e.a), compile_expr(e.b)
    if name in _COMPARE:
        fn = _COMPARE[name]
    else:
        fn = (_ARITH_FLOAT if e.dtype.is_float else _ARITH_INT)[name]
    t = e.dtype
    if name in _COMPARE:
        return lambda env: fn(fa(env), fb(env))
    npdt = np_dtype(t)

    def arith(env):
        value = fn(fa(env), fb(env))
        # keep results in the node's dtype (numpy may widen mixed operands)
        return value if value.dtype == npdt else typed(value, t)

    return arith


def _not(e):
    fa = compile_expr(e.a)
    return lambda env: np.logical_not(fa(env))


def _cast(e):
    fa, t = compile_expr(e.value), e.dtype
    if t.is_bool:
        return lambda env: np.not_equal(fa(env), 0)
    return lambda env: typed(fa(env), t)


def _select(e):
    fc, ft, ff = compile_expr(e.condition), compile_expr(e.true_value), compile_expr(e.false_value)

    def select(env):
        c, a, b = fc(env), ft(env), ff(env)
        return np.where(c, a, b) if isinstance(c, np.ndarray) else (a if c else b)

    return select


def _ramp(e):
    fb, fs, n = compile_expr(e.base), compile_expr(e.stride), e.lanes
    t = e.base.dtype.numpy()
    return lambda env: (fb(env) + fs(env) * np.arange(n, dtype=t)).astype(t)


def _broadcast(e):
    fv, n = compile_expr(e.value), e.lanes
    t = e.value.dtype.numpy()
    return lambda env: np.full(n, fv(env), dtype=t)


def _let(e):
    fv, fbody, var = compile_expr(e.value), compile_expr(e.body), e.var

    def let(env):
        env[var] = fv(env)
        return fbody(env)

    return let


def _erf(x):
    try:
        from scipy.special import erf
    except ImportError:  # pragma: no cover - scipy is optional
        erf = np.vectorize(math.erf)
    return erf(x)


def _popcount(x):
    return np.vectorize(lambda v: bin(int(v) & ((1 << 64) - 1)).count("1"))(x)


_MATH = {
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(10.0, x), "log": np.log,
    "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "expm1": np.expm1, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)), "erf": _erf, "fabs": np.abs,
    "floor": np.floor, "ceil": np.ceil, "round": np.rint, "nearbyint": np.rint,
    "trunc": np.trunc, "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
    "popcount": _popcount, "bitwise_not": np.invert,
    "pow": np.power, "fmod": np.fmod, "atan2": np.arctan2, "copysign": np.copysign,
    "hypot": np.hypot, "ldexp": lambda x, e: np.ldexp(x, np.asarray(e).astype(np.int32)),
    "nextafter": np.nextafter, "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor, "shift_left": np.left_shift, "shift_right": np.right_shift,
    "likely": lambda x: x,
}


def _clz(e, args):
    bits = e.args[0].dtype.bits
    (fa,) = args
    mask = (1 << bits) - 1
    return lambda env: typed(bits - (int(fa(env)) & mask).bit_length(), e.dtype)


def _if_then_else(e, args):
    fc, ft, ff = args

    def ite(env):
        c = fc(env)
        if isinstance(c, np.ndarray):
            return np.where(c, ft(env), ff(env))
        return ft(env) if c else ff(env)

    return ite


def _reinterpret(e, args):
    (fa,) = args
    t = e.dtype.numpy()
    return lambda env: np.asarray(fa(env)).view(t)[()]


def _extern(e, args):
    name = e.args[0].value
    fns = args[1:]
    t = e.dtype

    def call(env):
        fn = _EXTERNS.get(name)
        if fn is None:
            raise InterpreterError(
                f"call_extern({name!r}): no Python implementation; add one with "
                "ember.tir.interpreter.register_extern"
            )
        out = fn(*[f(env) for f in fns])
        return None if t.is_handle else typed(out, t)

    return call


_SPECIAL_CALLS = {
    "if_then_else": _if_then_else, "clz": _clz, "reinterpret": _reinterpret,
    "call_extern": _extern, "call_pure_extern": _extern,
}


def _call(e):
    name = getattr(e.op, "name", str(e.op))
    short = name[4:] if name.startswith("tir.") else name
    if short in ("call_extern", "call_pure_extern"):
        return _extern(e, [None] + [compile_expr(a) for a in e.args[1:]])
    args = [compile_expr(a) for a in e.args]
    special = _SPECIAL_CALLS.get(short)
    if special is not None:
        return special(e, args)
    fn = _MATH.get(short)
    if fn is None:
        raise InterpreterError(f"the interpreter does not implement the intrinsic {name!r}")
    t = e.dtype
    return lambda env: typed(fn(*[f(env) for f in args]), t)


def _string(e):
    return lambda env: e.value


EXPR = {
    IntImm: _const, FloatImm: _const, StringImm: _string,
    "Var": _var, "SizeVar": _var, "Not": _not, "Cast": _cast, "Select": _select,
    "Ramp": _ramp, "Broadcast": _broadcast, "Let": _let, "Call": _call,
}


def compile_expr(e):
    builder = EXPR.get(type(e)) or EXPR.get(type(e).__name__)
    if builder is None:
        from ember.ir import BinaryOp

        if isinstance(e, BinaryOp):
            return _binary(e)
        if isinstance(e, Var):
            return _var(e)
        raise InterpreterError(
            f"the interpreter cannot evaluate {type(e).__name__}; lower it to TIR first"
        )
    return builder(e)
