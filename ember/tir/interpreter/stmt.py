"""Statements and the entry point of the reference interpreter: the table (``STMT``) of
compilers turning statements into closures ``env → None``, and ``run``."""

from __future__ import annotations

import numpy as np

from ember.ir import IRModule, Var

from .. import stmt as S
from ..buffer import Buffer
from ..function import PrimFunc
from .expr import InterpreterError, compile_expr, np_dtype, typed
from .memory import access, alloc, alloc_buffer, match_buffer, row_major, static_int

__all__ = ["run", "compile_stmt"]


def _store(s):
    get = access(s.buffer, s.indices)
    fv = compile_expr(s.value)

    def store(env):
        value = fv(env)
        arr, flat = get(env)
        arr[flat] = value

    return store


def _for(s):
    fmin, fext, body, var = compile_expr(s.min), compile_expr(s.extent), compile_stmt(s.body), s.loop_var
    t = np_dtype(var.dtype).type

    def loop(env):
        lo = int(fmin(env))
        for x in range(lo, lo + int(fext(env))):
            env[var] = t(x)
            body(env)

    return loop


def _while(s):
    fc, body = compile_expr(s.condition), compile_stmt(s.body)

    def loop(env):
        while fc(env):
            body(env)

    return loop


def _seq(s):
    parts = [compile_stmt(x) for x in s.seq]

    def run_all(env):
        for p in parts:
            p(env)

    return run_all


def _if(s):
    fc, then = compile_expr(s.condition), compile_stmt(s.then_case)
    other = compile_stmt(s.else_case) if s.else_case is not None else None

    def branch(env):
        if fc(env):
            then(env)
        elif other is not None:
            other(env)

    return branch


def _let_stmt(s):
    fv, body, var = compile_expr(s.value), compile_stmt(s.body), s.var

    def let(env):
        env[var] = fv(env)
        body(env)

    return let


def _allocate(s):
    ext_fns = [compile_expr(e) for e in s.extents]
    body, var, dtype = compile_stmt(s.body), s.buffer_var, s.dtype

    def allocate(env):
        size = 1
        for f in ext_fns:
            size *= int(f(env))
        env[var] = alloc(dtype, size * dtype.lanes)
        body(env)

    return allocate


def _evaluate(s):
    fv = compile_expr(s.value)

    def evaluate(env):
        fv(env)

    return evaluate


def _assert(s):
    fc, fm, body = compile_expr(s.condition), compile_expr(s.message), compile_stmt(s.body)

    def check(env):
        if not fc(env):
            raise InterpreterError(f"assertion failed: {fm(env)}")
        body(env)

    return check


def _body_only(s):
    return compile_stmt(s.body)


def _block_realize(s):
    block = s.block
    value_fns = [compile_expr(v) for v in s.iter_values]
    fpred = compile_expr(s.predicate)
    body = compile_stmt(block.body)
    init = compile_stmt(block.init) if block.init is not None else None
    reduce_slots = [
        (i, iv) for i, iv in enumerate(block.iter_vars) if iv.iter_type == S.IterVarType.CommReduce
    ]
    reduce_starts = [compile_expr(iv.dom.min) for _, iv in reduce_slots]
    static_starts = [static_int(iv.dom.min) for _, iv in reduce_slots]
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
            alloc_buffer(buffer, env)
        for match in block.match_buffers:
            match_buffer(match, env)
        if init is not None and all(
            values[i] == start(env) for (i, _), start in zip(reduce_slots, reduce_starts)
        ):
            init(env)
        body(env)

    return realize


STMT = {
    "BufferStore": _store, "For": _for, "While": _while, "SeqStmt": _seq, "IfThenElse": _if,
    "LetStmt": _let_stmt, "Allocate": _allocate, "Evaluate": _evaluate, "AssertStmt": _assert,
    "AttrStmt": _body_only, "DeclBuffer": _body_only, "BlockRealize": _block_realize,
}


def compile_stmt(s):
    builder = STMT.get(type(s).__name__)
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
            env[dim] = typed(size, dim.dtype)
        else:
            pending.append((label, d, dim, size))
    for sym, stride in zip(buffer.strides, row_major(arr.shape)):
        if isinstance(sym, Var) and sym not in env:
            env[sym] = typed(stride, sym.dtype)
    if isinstance(buffer.elem_offset, Var):
        env[buffer.elem_offset] = typed(0, buffer.elem_offset.dtype)
    env[buffer.data] = arr.reshape(-1)
    env[param] = env[buffer.data]


def run(func, *args, **scalars) -> None:
    """Execute ``func`` (a PrimFunc, or an IRModule with one) on numpy arrays, in place.

    Arrays with ``.numpy()`` and ``.copyfrom()`` (ember NDArrays) also work: the run
    uses numpy copies and writes every buffer argument back afterwards."""
    staged = [(a, a.numpy()) for a in args if _is_ndarray_like(a)]
    if staged:
        copies = {id(a): c for a, c in staged}
        _run(func, *[copies.get(id(a), a) for a in args], **scalars)
        for a, c in staged:
            a.copyfrom(c)
        return
    _run(func, *args, **scalars)


def _is_ndarray_like(a) -> bool:
    return not isinstance(a, np.ndarray) and hasattr(a, "numpy") and hasattr(a, "copyfrom")


def _run(func, *args, **scalars) -> None:
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
            env[param] = typed(value, param.dtype)
    for name, value in scalars.items():
        var = by_name.get(name)
        if var is None:
            var = _find_shape_var(func, name)
        if var is None:
            raise TypeError(f"run: unknown keyword argument {name!r}; parameters are {sorted(by_name)}")
        env[var] = typed(value, var.dtype)
    missing = [p.name for p in params if p not in env]
    if missing:
        raise TypeError(f"run: missing argument(s) {', '.join(missing)}")
    with np.errstate(all="ignore"):
        for label, d, dim, size in pending:
            expected = int(compile_expr(dim)(env))
            if expected != size:
                raise ValueError(f"run: {label} has size {size} in dimension {d}, expected {expected}")
        from ..transform.lower_init_block import init_empty_reductions  # inits of empty reductions

        compile_stmt(init_empty_reductions(func.body))(env)


def _find_shape_var(func: PrimFunc, name: str):
    for buffer in func.buffer_map.values():
        for dim in buffer.shape:
            if isinstance(dim, Var) and dim.name == name:
                return dim
    return None
