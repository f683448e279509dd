"""Buffers for the reference interpreter: layouts (strides, offset) of buffers over flat
storage, bounds-checked element access, allocation and ``match_buffer`` views."""

from __future__ import annotations

import numpy as np

from ember.ir import DataType, IntImm, Var

from ..buffer import Buffer
from .expr import EXPR, InterpreterError, compile_expr, typed

__all__ = ["static_int", "layout_fn", "row_major", "access", "alloc", "alloc_buffer", "match_buffer"]


def static_int(e):
    return int(e.value) if isinstance(e, IntImm) else None


def layout_fn(buffer: Buffer):
    """A function env → (strides, offset) for ``buffer`` (cached in env when computed)."""
    dims = [static_int(d) for d in buffer.shape]
    strides = [static_int(s) for s in buffer.strides]
    offset = 0 if buffer.elem_offset is None else static_int(buffer.elem_offset)
    if buffer.strides:
        static = all(s is not None for s in strides) and offset is not None
        layout = (tuple(strides), offset)
    else:
        static = all(d is not None for d in dims) and offset is not None
        layout = (row_major(dims), offset) if static else None
    stride_fns = [compile_expr(s) for s in buffer.strides]
    shape_fns = [compile_expr(d) for d in buffer.shape]
    off_fn = compile_expr(buffer.elem_offset) if buffer.elem_offset is not None else None

    def compute(env):
        found = env.get(buffer)
        if found is not None:
            return found
        if static:
            return layout
        if buffer.strides:
            st = tuple(int(f(env)) for f in stride_fns)
        else:
            st = row_major([int(f(env)) for f in shape_fns])
        found = (st, int(off_fn(env)) if off_fn is not None else 0)
        env[buffer] = found
        return found

    return compute


def row_major(dims) -> tuple:
    strides, acc = [], 1
    for d in reversed(dims):
        strides.append(acc)
        acc *= d
    return tuple(reversed(strides))


def access(buffer: Buffer, indices):
    """A function env → (flat storage array, flat index) for ``buffer[indices]``."""
    layout = layout_fn(buffer)
    index_fns = [compile_expr(i) for i in indices]
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


def alloc(dtype: DataType, size: int) -> np.ndarray:
    t = dtype.numpy()
    arr = np.empty(size, dtype=t)
    if dtype.is_float:
        arr.fill(np.nan)  # reading before writing shows up as NaN
    else:
        arr.fill(0)
    return arr


def alloc_buffer(buffer: Buffer, env) -> None:
    dims = [int(compile_expr(d)(env)) for d in buffer.shape]
    env[buffer.data] = alloc(buffer.dtype, int(np.prod(dims, dtype=np.int64)))
    env.pop(buffer, None)


def _buffer_load(e):
    get = access(e.buffer, e.indices)

    def load(env):
        arr, flat = get(env)
        return arr[flat]

    return load


def match_buffer(match, env) -> None:
    """Bind ``match.buffer`` to the region ``match.source`` of an outer buffer."""
    src = match.source.buffer
    buf = match.buffer
    src_strides, src_offset = layout_fn(src)(env)
    mins = [int(compile_expr(r.min)(env)) for r in match.source.region]
    offset = src_offset + sum(m * s for m, s in zip(mins, src_strides))
    strides = src_strides[len(src_strides) - len(buf.shape):]
    env[buf.data] = env[src.data]
    for sym, value in zip(buf.strides, strides):
        if isinstance(sym, Var):
            env[sym] = typed(value, sym.dtype)
    if isinstance(buf.elem_offset, Var):
        env[buf.elem_offset] = typed(offset, buf.elem_offset.dtype)
    extents = [r.extent for r in match.source.region][len(match.source.region) - len(buf.shape):]
    for sym, ext in zip(buf.shape, extents):
        if isinstance(sym, Var):
            env[sym] = compile_expr(ext)(env)
    env[buf] = (tuple(strides), offset)


EXPR["BufferLoad"] = _buffer_load
