"""Converters for symbolic sizes and Python operators in graphs: ``sym_size``/``sym_numel``,
``operator.getitem`` on multi-output ops, and arithmetic on sizes (``operator.mul`` …),
which become PrimExprs over the input's symbolic dims."""

from __future__ import annotations

import operator



from .registry import converter


@converter("aten.sym_size.int")
def sym_size(ctx, x, dim):
    return ctx.shape(x)[ctx.norm_axis(dim, ctx.ndim(x))]


@converter("aten.sym_numel.default", "aten.numel.default")
def sym_numel(ctx, x):
    total = 1
    for d in ctx.shape(x):
        total = total * d
    return total


@converter("aten.sym_stride.int")
def sym_stride(ctx, x, dim):
    shape = ctx.shape(x)
    total = 1
    for d in shape[ctx.norm_axis(dim, len(shape)) + 1:]:
        total = total * d
    return total


@converter("_operator.getitem")
def getitem(ctx, x, index):
    if isinstance(x, list | tuple):
        return x[index]
    return ctx.tuple_item(x, index)


def _sym_binary(fn):
    def convert(ctx, a, b):
        if hasattr(a, "struct_info") or hasattr(b, "struct_info"):
            raise NotImplementedError("operator on a tensor (expected symbolic sizes)")
        return fn(a, b)

    return convert


for _name, _fn in (("ge", operator.ge), ("gt", operator.gt), ("le", operator.le), ("lt", operator.lt),
                   ("eq", operator.eq), ("ne", operator.ne), ("and_", operator.and_), ("or_", operator.or_),
                   ("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("floordiv", operator.floordiv), ("mod", operator.mod)):
    converter(f"_operator.{_name}", f"torch.sym_{_name}")(_sym_binary(_fn))


@converter("_operator.truediv")
def truediv(ctx, a, b):
    """Python's true division: a float even for two (symbolic) ints."""
    from ember import tir

    if isinstance(a, int | float) and isinstance(b, int | float):
        return a / b

    def as_float(v):
        if isinstance(v, int | float):
            return tir.FloatImm("float64", float(v))
        return v if str(v.dtype).startswith("float") else tir.op.cast(v, "float64")

    return as_float(a) / as_float(b)


@converter("_operator.neg")
def neg(ctx, a):
    return -a


@converter("aten._local_scalar_dense.default", "aten.item.default")
def item(ctx, x):
    raise NotImplementedError("tensor.item() makes a data-dependent Python value")


@converter("aten.sym_not.default", "torch.sym_not")
def sym_not(ctx, a):
    from ember import tir

    return tir.Not(a) if isinstance(a, tir.PrimExpr) else not a



