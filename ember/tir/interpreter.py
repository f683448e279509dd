"""The reference interpreter: a slow, obviously-correct numpy evaluator of TIR PrimFuncs.

``run(func, *arrays, **scalars)`` executes ``func`` on numpy arrays in place: buffer
parameters take C-contiguous arrays (outputs are written into them), scalar parameters
take numbers, positionally or by name.  It runs block-based TIR (blocks with init on
the first reduction iteration, predicates, alloc_buffers, match_buffers), scheduled
loops (every loop kind runs serially), and lowered TIR (Allocate, flat buffers that
share a data Var, Ramp/Broadcast vectors).  Values are numpy scalars of the node's
dtype, so integer arithmetic wraps like machine code; reads outside a buffer raise.

Implementation: the function is first compiled into nested Python closures (one per
node, found in the ``_EXPR`` / ``_STMT`` tables), then the closures run over one
environment dict mapping Vars to values, data Vars to flat storage arrays and Buffers
to their (strides, offset) layout.  Backends are compared against this in tests.
"""

from __future__ import annotations

import math

import numpy as np

from ember.ir import DataType, FloatImm, IntImm, IRModule, StringImm, Var

from . import stmt as S
from .buffer import Buffer
from .function import PrimFunc

__all__ = ["run", "register_extern", "InterpreterError"]


class InterpreterError(RuntimeError):
    """A TIR program did something the interpreter cannot or must not do."""


_EXTERNS: dict = {}


def register_extern(name: str, fn) -> None:
    """Make ``call_extern(name, ...)`` / ``call_pure_extern`` call the Python ``fn``."""
    _EXTERNS[name] = fn


def _np_type(dtype: DataType):
    return _np(dtype).type


_NP_DTYPES: dict = {}


def _np(dtype: DataType):
    """The numpy dtype of one lane of ``dtype`` (cached: this is on every hot path)."""
    t = _NP_DTYPES.get(dtype)
    if t is None:
        t = _NP_DTYPES[dtype] = dtype.numpy()
    return t


def _typed(value, dtype: DataType):
    """``value`` as a numpy value of ``dtype`` (array for vectors)."""
    t = _np(dtype)
    if dtype.lanes > 1 or isinstance(value, np.ndarray):
        return np.asarray(value).astype(t)
    if type(value) is t.type:
        return value
    return np.asarray(value).astype(t)[()]


# -- expressions --------------------------------------------------------------------


def _const(e):
    value = _typed(e.value, e.dtype)
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
    fa, fb = _expr(e.a), _expr(e.b)
    if name in _COMPARE:
        fn = _COMPARE[name]
    else:
        fn = (_ARITH_FLOAT if e.dtype.is_float else _ARITH_INT)[name]
    t = e.dtype
    if name in _COMPARE:
        return lambda env: fn(fa(env), fb(env))
    npdt = _np(t)

    def arith(env):
        value = fn(fa(env), fb(env))
        # keep results in the node's dtype (numpy may widen mixed operands)
        return value if value.dtype == npdt else _typed(value, t)

    return arith


def _not(e):
    fa = _expr(e.a)
    return lambda env: np.logical_not(fa(env))


def _cast(e):
    fa, t = _expr(e.value), e.dtype
    if t.is_bool:
        return lambda env: np.not_equal(fa(env), 0)
    return lambda env: _typed(fa(env), t)


def _select(e):
    fc, ft, ff = _expr(e.condition), _expr(e.true_value), _expr(e.false_value)

    def select(env):
        c, a, b = fc(env), ft(env), ff(env)
        return np.where(c, a, b) if isinstance(c, np.ndarray) else (a if c else b)

    return select


def _ramp(e):
    fb, fs, n = _expr(e.base), _expr(e.stride), e.lanes
    t = e.base.dtype.numpy()
    return lambda env: (fb(env) + fs(env) * np.arange(n, dtype=t)).astype(t)


def _broadcast(e):
    fv, n = _expr(e.value), e.lanes
    t = e.value.dtype.numpy()
    return lambda env: np.full(n, fv(env), dtype=t)


def _let(e):
    fv, fbody, var = _expr(e.value), _expr(e.body), e.var

    def let(env):
        env[var] = fv(env)
        return fbody(env)

    return let


def _buffer_load(e):
    access = _access(e.buffer, e.indices)

    def load(env):
        arr, flat = access(env)
        return arr[flat]

    return load


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
    return lambda env: _typed(bits - (int(fa(env)) & mask).bit_length(), e.dtype)


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
        return None if t.is_handle else _typed(out, t)

    return call


_SPECIAL_CALLS = {
    "if_then_else": _if_then_else, "clz": _clz, "reinterpret": _reinterpret,
    "call_extern": _extern, "call_pure_extern": _extern,
}


def _call(e):
    name = getattr(e.op, "name", str(e.op))
    short = name[4:] if name.startswith("tir.") else name
    if short in ("call_extern", "call_pure_extern"):
        return _extern(e, [None] + [_expr(a) for a in e.args[1:]])
    args = [_expr(a) for a in e.args]
    special = _SPECIAL_CALLS.get(short)
    if special is not None:
        return special(e, args)
    fn = _MATH.get(short)
    if fn is None:
        raise InterpreterError(f"the interpreter does not implement the intrinsic {name!r}")
    t = e.dtype
    return lambda env: _typed(fn(*[f(env) for f in args]), t)


def _string(e):
    return lambda env: e.value


_EXPR = {
    IntImm: _const, FloatImm: _const, StringImm: _string,
    "Var": _var, "SizeVar": _var, "Not": _not, "Cast": _cast, "Select": _select,
    "Ramp": _ramp, "Broadcast": _broadcast, "Let": _let, "Call": _call,
    "BufferLoad": _buffer_load,
}


def _expr(e):
    builder = _EXPR.get(type(e)) or _EXPR.get(type(e).__name__)
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


# -- buffers ------------------------------------------------------------------------


def _static_int(e):
    return int(e.value) if isinstance(e, IntImm) else None


def _layout_fn(buffer: Buffer):
    """A function env → (strides, offset) for ``buffer`` (cached in env when computed)."""
    dims = [_static_int(d) for d in buffer.shape]
    strides = [_static_int(s) for s in buffer.strides]
    offset = 0 if buffer.elem_offset is None else _static_int(buffer.elem_offset)
    if buffer.strides:
        static = all(s is not None for s in strides) and offset is not None
        layout = (tuple(strides), offset)
    else:
        static = all(d is not None for d in dims) and offset is not None
        layout = (_row_major(dims), offset) if static else None
    stride_fns = [_expr(s) for s in buffer.strides]
    shape_fns = [_expr(d) for d in buffer.shape]
    off_fn = _expr(buffer.elem_offset) if buffer.elem_offset is not None else None

    def compute(env):
        found = env.get(buffer)
        if found is not None:
            return found
        if static:
            return layout
        if buffer.strides:
            st = tuple(int(f(env)) for f in stride_fns)
        else:
            st = _row_major([int(f(env)) for f in shape_fns])
        found = (st, int(off_fn(env)) if off_fn is not None else 0)
        env[buffer] = found
        return found

    return compute


def _row_major(dims) -> tuple:
    strides, acc = [], 1
    for d in reversed(dims):
        strides.append(acc)
        acc *= d
    return tuple(reversed(strides))


def _access(buffer: Buffer, indices):
    """A function env → (flat storage array, flat index) for ``buffer[indices]``."""
    layout = _layout_fn(buffer)
    index_fns = [_expr(i) for i in indices]
    data, name = buffer.data, buffer.name

    def access(env):
        try:
            arr = env[data]
        except KeyError:
            raise InterpreterError(f"buffer {name!r} is used outside the scope that allocates it") from None
        strides, flat = layout(env)
        vector = False
        for f, s in zip(index_fns, strides):
            v = f(env)
            if type(v) is np.ndarray:
                vector = True
                flat = flat + v.astype(np.int64) * s
            else:
                flat = flat + int(v) * s
        if vector:
            bad = np.any(flat < 0) or np.any(flat >= arr.size)
        else:
            bad = flat < 0 or flat >= arr.size
        if bad:
            idx = [f(env) for f in index_fns]
            raise InterpreterError(
                f"out-of-bounds access to buffer {name!r} at indices {idx} "
                f"(flat offset {flat}, buffer holds {arr.size} elements)"
            )
        return arr, flat

    return access


def _alloc(dtype: DataType, size: int) -> np.ndarray:
    t = dtype.numpy()
    arr = np.empty(size, dtype=t)
    if dtype.is_float:
        arr.fill(np.nan)  # reading before writing shows up as NaN
    else:
        arr.fill(0)
    return arr


def _alloc_buffer(buffer: Buffer, env) -> None:
    dims = [int(_expr(d)(env)) for d in buffer.shape]
    env[buffer.data] = _alloc(buffer.dtype, int(np.prod(dims, dtype=np.int64)))
    env.pop(buffer, None)


# -- statements ---------------------------------------------------------------------


def _store(s):
    access = _access(s.buffer, s.indices)
    fv = _expr(s.value)

    def store(env):
        value = fv(env)
        arr, flat = access(env)
        arr[flat] = value

    return store


def _for(s):
    fmin, fext, body, var = _expr(s.min), _expr(s.extent), _stmt(s.body), s.loop_var
    t = _np_type(var.dtype)

    def loop(env):
        lo = int(fmin(env))
        for x in range(lo, lo + int(fext(env))):
            env[var] = t(x)
            body(env)

    return loop


def _while(s):
    fc, body = _expr(s.condition), _stmt(s.body)

    def loop(env):
        while fc(env):
            body(env)

    return loop


def _seq(s):
    parts = [_stmt(x) for x in s.seq]

    def run_all(env):
        for p in parts:
            p(env)

    return run_all


def _if(s):
    fc, then = _expr(s.condition), _stmt(s.then_case)
    other = _stmt(s.else_case) if s.else_case is not None else None

    def branch(env):
        if fc(env):
            then(env)
        elif other is not None:
            other(env)

    return branch


def _let_stmt(s):
    fv, body, var = _expr(s.value), _stmt(s.body), s.var

    def let(env):
        env[var] = fv(env)
        body(env)

    return let


def _allocate(s):
    ext_fns = [_expr(e) for e in s.extents]
    body, var, dtype = _stmt(s.body), s.buffer_var, s.dtype

    def allocate(env):
        size = 1
        for f in ext_fns:
            size *= int(f(env))
        env[var] = _alloc(dtype, size * dtype.lanes)
        body(env)

    return allocate


def _evaluate(s):
    fv = _expr(s.value)

    def evaluate(env):
        fv(env)

    return evaluate


def _assert(s):
    fc, fm, body = _expr(s.condition), _expr(s.message), _stmt(s.body)

    def check(env):
        if not fc(env):
            raise InterpreterError(f"assertion failed: {fm(env)}")
        body(env)

    return check


def _body_only(s):
    return _stmt(s.body)


def _match_buffer(match, env) -> None:
    """Bind ``match.buffer`` to the region ``match.source`` of an outer buffer."""
    src = match.source.buffer
    buf = match.buffer
    src_strides, src_offset = _layout_fn(src)(env)
    mins = [int(_expr(r.min)(env)) for r in match.source.region]
    offset = src_offset + sum(m * s for m, s in zip(mins, src_strides))
    strides = src_strides[len(src_strides) - len(buf.shape):]
    env[buf.data] = env[src.data]
    for sym, value in zip(buf.strides, strides):
        if isinstance(sym, Var):
            env[sym] = _typed(value, sym.dtype)
    if isinstance(buf.elem_offset, Var):
        env[buf.elem_offset] = _typed(offset, buf.elem_offset.dtype)
    extents = [r.extent for r in match.source.region][len(match.source.region) - len(buf.shape):]
    for sym, ext in zip(buf.shape, extents):
        if isinstance(sym, Var):
            env[sym] = _expr(ext)(env)
    env[buf] = (tuple(strides), offset)


def _block_realize(s):
    block = s.block
    value_fns = [_expr(v) for v in s.iter_values]
    fpred = _expr(s.predicate)
    body = _stmt(block.body)
    init = _stmt(block.init) if block.init is not None else None
    reduce_slots = [
        (i, iv) for i, iv in enumerate(block.iter_vars) if iv.iter_type == S.IterVarType.CommReduce
    ]
    reduce_starts = [_expr(iv.dom.min) for _, iv in reduce_slots]
    static_starts = [_static_int(iv.dom.min) for _, iv in reduce_slots]
    if all(v is not None for v in static_starts):
        reduce_starts = [lambda env, v=v: v for v in static_starts]
    iter_vars = [iv.var for iv in block.iter_vars]

    def realize(env):
        if not fpred(env):
            return
        values = [f(env) for f in value_fns]
        for var, value in zip(iter_vars, values):
            env[var] = value
        for buffer in block.alloc_buffers:
            _alloc_buffer(buffer, env)
        for match in block.match_buffers:
            _match_buffer(match, env)
        if init is not None and all(
            values[i] == start(env) for (i, _), start in zip(reduce_slots, reduce_starts)
        ):
            init(env)
        body(env)

    return realize


_STMT = {
    "BufferStore": _store, "For": _for, "While": _while, "SeqStmt": _seq, "IfThenElse": _if,
    "LetStmt": _let_stmt, "Allocate": _allocate, "Evaluate": _evaluate, "AssertStmt": _assert,
    "AttrStmt": _body_only, "DeclBuffer": _body_only, "BlockRealize": _block_realize,
}


def _stmt(s):
    builder = _STMT.get(type(s).__name__)
    if builder is None:
        raise InterpreterError(f"the interpreter cannot execute {type(s).__name__}")
    return builder(s)


# -- entry point --------------------------------------------------------------------


def _select_func(func) -> PrimFunc:
    if isinstance(func, IRModule):
        funcs = [f for _, f in func.functions.items() if isinstance(f, PrimFunc)]
        if len(funcs) == 1:
            return funcs[0]
        if "main" in func:
            return func["main"]
        raise InterpreterError(
            f"run: the IRModule has {len(funcs)} PrimFuncs and none is called 'main'; pass one PrimFunc"
        )
    if not isinstance(func, PrimFunc):
        raise TypeError(f"run: func must be a PrimFunc or IRModule, got {type(func).__name__}")
    return func


def _bind_buffer(param: Var, buffer: Buffer, arr, env: dict, pending: list) -> None:
    label = f"argument {param.name!r}"
    if hasattr(arr, "numpy") and not isinstance(arr, np.ndarray):
        raise TypeError(f"run: {label} must be a numpy array (outputs are written in place), got {type(arr).__name__}")
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"run: {label} must be a numpy array, got {type(arr).__name__}")
    if arr.ndim != len(buffer.shape):
        raise ValueError(f"run: {label} must have {len(buffer.shape)} dimension(s), got an array of shape {arr.shape}")
    if arr.dtype != buffer.dtype.numpy():
        raise TypeError(f"run: {label} must have dtype {buffer.dtype}, got {arr.dtype}")
    if not arr.flags.c_contiguous:
        raise ValueError(f"run: {label} must be C-contiguous; pass np.ascontiguousarray(...)")
    for d, (dim, size) in enumerate(zip(buffer.shape, arr.shape)):
        if isinstance(dim, Var) and dim not in env:
            env[dim] = _typed(size, dim.dtype)
        else:
            pending.append((label, d, dim, size))
    for sym, stride in zip(buffer.strides, _row_major(arr.shape)):
        if isinstance(sym, Var) and sym not in env:
            env[sym] = _typed(stride, sym.dtype)
    if isinstance(buffer.elem_offset, Var):
        env[buffer.elem_offset] = _typed(0, buffer.elem_offset.dtype)
    env[buffer.data] = arr.reshape(-1)
    env[param] = env[buffer.data]


def run(func, *args, **scalars) -> None:
    """Execute ``func`` (a PrimFunc, or an IRModule with one) on numpy arrays, in place."""
    func = _select_func(func)
    params = list(func.params)
    if len(args) > len(params):
        names = ", ".join(p.name for p in params)
        raise TypeError(f"run: the function takes {len(params)} argument(s) ({names}), got {len(args)}")
    env: dict = {}
    pending: list = []
    by_name = {p.name: p for p in params}
    for param, value in zip(params, args):
        if param in func.buffer_map:
            _bind_buffer(param, func.buffer_map[param], value, env, pending)
        else:
            env[param] = _typed(value, param.dtype)
    for name, value in scalars.items():
        var = by_name.get(name)
        if var is None:
            var = _find_shape_var(func, name)
        if var is None:
            raise TypeError(f"run: unknown keyword argument {name!r}; parameters are {sorted(by_name)}")
        env[var] = _typed(value, var.dtype)
    missing = [p.name for p in params if p not in env]
    if missing:
        raise TypeError(f"run: missing argument(s) {', '.join(missing)}")
    with np.errstate(all="ignore"):
        for label, d, dim, size in pending:
            expected = int(_expr(dim)(env))
            if expected != size:
                raise ValueError(f"run: {label} has size {size} in dimension {d}, expected {expected}")
        _stmt(func.body)(env)


def _find_shape_var(func: PrimFunc, name: str):
    for buffer in func.buffer_map.values():
        for dim in buffer.shape:
            if isinstance(dim, Var) and dim.name == name:
                return dim
    return None

