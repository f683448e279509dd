"""Creation and cast converters: full/zeros/ones/empty (and their *_like / new_* forms),
arange, linspace, eye, scalar_tensor, fill, tril/triu, ``_to_copy``/``to``/``type_as``
casts and ``copy``.  The dtype of a created tensor is the one PyTorch recorded."""

from __future__ import annotations

from ember.ir import PrimExpr
from ember.relax import op as R
from ember.relax.expr import PrimValue

from .registry import converter


def _shape(size):
    return [s for s in (size if isinstance(size, list | tuple) else [size])]


def _filled(ctx, size, value):
    dtype = ctx.out_dtype()
    if isinstance(value, PrimExpr):
        value = ctx.emit(R.astype(ctx.emit(R.full((), PrimValue(value), "int64")), dtype))
    else:
        value = ctx.const(value, dtype)
    return R.full(_shape(size), value, dtype)


@converter("aten.full.default", "aten.new_full.default")
def full(ctx, *args):
    if "new_full" in str(ctx.node.target):
        _, size, value = args[:3]
    else:
        size, value = args[:2]
    return _filled(ctx, size, value)


@converter("aten.zeros.default", "aten.ones.default", "aten.empty.memory_format", "aten.empty.default",
           "aten.new_zeros.default", "aten.new_ones.default", "aten.new_empty.default",
           "aten.empty_strided.default", "aten.new_empty_strided.default")
def zeros(ctx, *args):
    key = str(ctx.node.target)
    size = args[1] if ".new_" in key else args[0]
    return _filled(ctx, size, 1 if "ones" in key else 0)


@converter("aten.full_like.default", "aten.zeros_like.default", "aten.ones_like.default",
           "aten.empty_like.default")
def full_like(ctx, x, *args):
    key = str(ctx.node.target)
    value = args[0] if "full_like" in key else (1 if "ones" in key else 0)
    return _filled(ctx, ctx.shape(x), value)


@converter("aten.fill.Scalar", "aten.fill_.Scalar", "aten.fill.Tensor", "aten.fill_.Tensor",
           "aten.zero_.default", "aten.zero.default")
def fill(ctx, x, value=0):
    if hasattr(value, "struct_info"):
        return R.broadcast_to(ctx.operand(value, ctx.dtype(x)), ctx.shape(x))
    return _filled(ctx, ctx.shape(x), value)


@converter("aten.scalar_tensor.default")
def scalar_tensor(ctx, value, *_):
    return _filled(ctx, [], value)


def _prim(v):
    return PrimValue(v) if isinstance(v, PrimExpr) else v


@converter("aten.arange.default", "aten.arange.start", "aten.arange.start_step")
def arange(ctx, *args):
    key = str(ctx.node.target)
    if key.endswith(".default"):
        start, end, step = 0, args[0], 1
    elif key.endswith(".start"):
        start, end, step = args[0], args[1], 1
    else:
        start, end, step = args[0], args[1], args[2]
    dtype = ctx.out_dtype("int64")
    if all(isinstance(v, int | float) for v in (start, end, step)):
        import math

        count = max(0, math.ceil((end - start) / step))
        if dtype.startswith(("int", "uint")) and all(isinstance(v, int) for v in (start, end, step)):
            return R.arange(start, start + count * step, step, dtype)
        idx = ctx.emit(R.arange(0, count, 1, dtype))
        return R.add(ctx.emit(R.multiply(idx, ctx.const(step, dtype))), ctx.const(start, dtype))
    return R.arange(_prim(start), _prim(end), _prim(step), dtype)


@converter("aten.linspace.default")
def linspace(ctx, start, end, steps, *_):
    dtype = ctx.out_dtype()
    if steps == 1:
        return R.full([1], ctx.const(start, dtype), dtype)
    step = (end - start) / (steps - 1)
    idx = ctx.emit(R.arange(0, steps, 1, dtype))
    return R.add(ctx.emit(R.multiply(idx, ctx.const(step, dtype))), ctx.const(start, dtype))


@converter("aten.eye.default", "aten.eye.m")
def eye(ctx, n, m=None, *_):
    if not isinstance(m, int):
        m = n
    dtype = ctx.out_dtype()
    rows = ctx.emit(R.expand_dims(ctx.emit(R.arange(0, n, 1, "int64")), 1))
    cols = ctx.emit(R.arange(0, m, 1, "int64"))
    return R.astype(ctx.emit(R.equal(rows, cols)), dtype)


@converter("aten.tril.default", "aten.triu.default", "aten.tril_.default", "aten.triu_.default")
def tril(ctx, x, diagonal=0):
    return (R.tril if "tril" in str(ctx.node.target) else R.triu)(x, int(diagonal))


@converter("aten._to_copy.default", "aten.to.dtype", "aten.to.dtype_layout", "aten.to.device",
           "aten.to.other", "aten.type_as.default", "aten._to_dim_order_copy.default",
           "aten.to.prim_dtype")
def to_copy(ctx, x, *_):
    return ctx.operand(x, ctx.out_dtype(ctx.dtype(x)))


@converter("aten.copy.default", "aten.copy_.default")
def copy(ctx, dst, src, non_blocking=False):
    src = ctx.operand(src, ctx.dtype(dst))
    if ctx.shape(src) != ctx.shape(dst):
        src = ctx.emit(R.broadcast_to(src, ctx.shape(dst)))
    return src

