"""Reduction and scan converters: sum/mean/prod/amax/amin, max/min (with indices),
argmax/argmin, var/std (any correction), any/all, logsumexp, norms, cumsum/cumprod,
sort/argsort/topk."""

from __future__ import annotations

from ember.relax import op as R

from .registry import converter


def _axes(ctx, x, dim):
    if dim is None or (isinstance(dim, list | tuple) and len(dim) == 0):
        return None
    dims = list(dim) if isinstance(dim, list | tuple) else [dim]
    return [ctx.norm_axis(d, ctx.ndim(x)) for d in dims]


def _float_input(ctx, x, dtype=None):
    from .importer import torch_dtype

    if dtype is not None:
        return ctx.operand(x, torch_dtype(dtype))
    return x


@converter("aten.sum.dim_IntList", "aten.sum.default")
def sum_(ctx, x, dim=None, keepdim=False, dtype=None):
    if str(ctx.node.target).endswith(".default"):  # sum.default(self, dtype=None)
        dim, dtype, keepdim = None, dim, False
    x = _float_input(ctx, x, dtype)
    if ctx.dtype(x) == "bool":
        x = ctx.operand(x, "int64")
    return R.sum(x, _axes(ctx, x, dim), keepdim)


@converter("aten.mean.dim", "aten.mean.default")
def mean(ctx, x, dim=None, keepdim=False, dtype=None):
    if "default" in str(ctx.node.target):
        dim, dtype, keepdim = None, dim, False
    return R.mean(_float_input(ctx, x, dtype), _axes(ctx, x, dim), keepdim)


@converter("aten.prod.dim_int", "aten.prod.default")
def prod(ctx, x, dim=None, keepdim=False, dtype=None):
    if "default" in str(ctx.node.target):
        dim, dtype, keepdim = None, dim, False
    return R.prod(_float_input(ctx, x, dtype), _axes(ctx, x, dim), keepdim)


@converter("aten.amax.default", "aten.amin.default", "aten.max.default", "aten.min.default")
def amax(ctx, x, dim=None, keepdim=False):
    fn = R.max if "max" in str(ctx.node.target) else R.min
    return fn(x, _axes(ctx, x, dim), keepdim)


@converter("aten.max.dim", "aten.min.dim")
def max_dim(ctx, x, dim, keepdim=False):
    is_max = "max" in str(ctx.node.target)
    values = ctx.emit((R.max if is_max else R.min)(x, [ctx.norm_axis(dim, ctx.ndim(x))], keepdim))
    indices = ctx.emit((R.argmax if is_max else R.argmin)(x, ctx.norm_axis(dim, ctx.ndim(x)), keepdim))
    return [values, ctx.operand(indices, "int64")]


@converter("aten.max.other", "aten.min.other")
def max_other(ctx, a, b):
    fn = R.maximum if "max" in str(ctx.node.target) else R.minimum
    dtype = ctx.out_dtype()
    return fn(ctx.operand(a, dtype), ctx.operand(b, dtype))


@converter("aten.argmax.default", "aten.argmin.default")
def argmax(ctx, x, dim=None, keepdim=False):
    fn = R.argmax if "argmax" in str(ctx.node.target) else R.argmin
    axis = None if dim is None else ctx.norm_axis(dim, ctx.ndim(x))
    return fn(x, axis, keepdim)


def _count(ctx, x, axes):
    shape = ctx.shape(x)
    n = 1
    for a in (axes if axes is not None else range(len(shape))):
        n = n * shape[a]
    return n


@converter("aten.var.correction", "aten.var.dim", "aten.var.default", "aten.std.correction", "aten.std.dim",
           "aten.std.default")
def var(ctx, x, dim=None, correction=None, keepdim=False, *rest):
    key = str(ctx.node.target)
    if key.endswith(".dim"):  # var.dim(self, dim, unbiased=True, keepdim=False)
        correction = 1 if correction in (None, True) else 0
    elif key.endswith(".default"):  # var.default(self, unbiased=True)
        correction, dim = (1 if dim in (None, True) else 0), None
    elif correction is None:
        correction = 1
    axes = _axes(ctx, x, dim)
    out = ctx.emit(R.variance(x, axes, keepdim))
    if correction:
        n = _count(ctx, x, axes)
        dtype = ctx.dtype(x)
        out = ctx.emit(R.multiply(out, ctx.operand(n, dtype)))
        out = ctx.emit(R.divide(out, ctx.operand(n - correction, dtype)))
    return R.sqrt(out) if "std" in key else out


@converter("aten.any.default", "aten.any.dim", "aten.any.dims", "aten.all.default", "aten.all.dim",
           "aten.all.dims")
def any_all(ctx, x, dim=None, keepdim=False):
    is_any = "any" in str(ctx.node.target)
    as_int = ctx.operand(ctx.emit(R.not_equal(x, ctx.const(0, ctx.dtype(x)))) if ctx.dtype(x) != "bool" else x,
                         "int32")
    red = ctx.emit((R.max if is_any else R.min)(as_int, _axes(ctx, x, dim), keepdim))
    return R.equal(red, ctx.const(1, "int32"))


@converter("aten.logsumexp.default")
def logsumexp(ctx, x, dim=None, keepdim=False):
    axes = _axes(ctx, x, dim)
    m = ctx.emit(R.max(x, axes, True))
    s = ctx.emit(R.sum(ctx.emit(R.exp(ctx.emit(R.subtract(x, m)))), axes, keepdim))
    m2 = m if keepdim else ctx.emit(R.squeeze(m, axes if axes is not None else None))
    return R.add(ctx.emit(R.log(s)), m2)


@converter("aten.linalg_vector_norm.default", "aten.norm.ScalarOpt_dim", "aten.norm.Scalar")
def vector_norm(ctx, x, ord=2, dim=None, keepdim=False, dtype=None):
    axes = _axes(ctx, x, dim)
    ax = ctx.emit(R.abs(x))
    if ord == float("inf"):
        return R.max(ax, axes, keepdim)
    if ord == float("-inf"):
        return R.min(ax, axes, keepdim)
    if ord == 1:
        return R.sum(ax, axes, keepdim)
    if ord == 2:
        return R.sqrt(ctx.emit(R.sum(ctx.emit(R.multiply(x, x)), axes, keepdim)))
    p = ctx.const(ord, ctx.dtype(x))
    total = ctx.emit(R.sum(ctx.emit(R.power(ax, p)), axes, keepdim))
    return R.power(total, ctx.const(1.0 / ord, ctx.dtype(x)))


@converter("aten.cumsum.default", "aten.cumprod.default", "aten.cumsum_.default")
def cumsum(ctx, x, dim, dtype=None):
    from .importer import torch_dtype

    out_dtype = torch_dtype(dtype) if dtype is not None else ctx.out_dtype()
    fn = R.cumsum if "cumsum" in str(ctx.node.target) else R.cumprod
    return fn(ctx.operand(x, out_dtype), ctx.norm_axis(dim, ctx.ndim(x)))


@converter("aten.sort.default", "aten.sort.stable")
def sort(ctx, x, *args):
    if "stable" in str(ctx.node.target):  # sort.stable(self, *, stable, dim=-1, descending=False)
        _, dim, descending = args
    else:
        dim, descending = args
    axis = ctx.norm_axis(dim, ctx.ndim(x))
    values = ctx.emit(R.sort(x, axis, bool(descending)))
    indices = ctx.emit(R.argsort(x, axis, bool(descending), "int64"))
    return [values, indices]


@converter("aten.argsort.default", "aten.argsort.stable")
def argsort(ctx, x, *args):
    if "stable" in str(ctx.node.target):
        _, dim, descending = args
    else:
        dim, descending = args
    return R.argsort(x, ctx.norm_axis(dim, ctx.ndim(x)), bool(descending), "int64")


@converter("aten.topk.default")
def topk(ctx, x, k, dim=-1, largest=True, sorted_=True):
    out = ctx.emit(R.topk(x, int(k), ctx.norm_axis(dim, ctx.ndim(x)), "both", bool(largest), "int64"))
    return [ctx.tuple_item(out, 0), ctx.tuple_item(out, 1)]
