"""``erase_to_well_defined``: struct info that mentions only defined variables.

Symbolic dims whose TIR variables are not in ``shape_var_map`` (and shapes given as a
Relax variable not in ``var_map``) are forgotten, keeping what stays known (ndim, dtype);
mapped variables are replaced by their values and the dims simplified.
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import Cast, PrimExpr, Var as TirVar, as_expr, const
from ember.tir.functor import collect, substitute

from ..expr import ShapeExpr, Var
from ..struct_info import (
    FuncStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo, TupleStructInfo,
)

__all__ = ["erase_to_well_defined"]


def _defined(expr, shape_var_map) -> bool:
    return all(v in shape_var_map for v in collect(expr, lambda n: isinstance(n, TirVar)))


def _dims(values, shape_var_map, analyzer):
    """The dims with mapped vars replaced, or None when a dim uses an unmapped var."""
    out = []
    for dim in values:
        dim = as_expr(dim)
        if not _defined(dim, shape_var_map):
            return None
        out.append(analyzer.simplify(substitute(dim, shape_var_map)) if shape_var_map else dim)
    return out


def _like(var, value):
    """``value`` as an expression of ``var``'s dtype (a Python 2 for an int64 dim is int64)."""
    if isinstance(value, int | float):
        return const(value, var.dtype)
    value = as_expr(value)
    return value if value.dtype == var.dtype else Cast(var.dtype, value)


def erase_to_well_defined(sinfo, shape_var_map=None, var_map=None):
    """``sinfo`` restricted to the variables in ``shape_var_map`` (TIR vars → values) and
    ``var_map`` (Relax vars → values)."""
    shape_var_map = {k: _like(k, v) for k, v in (shape_var_map or {}).items()}
    var_map = dict(var_map or {})
    return _erase(sinfo, shape_var_map, var_map, Analyzer())


def _erase(sinfo, shape_var_map, var_map, analyzer):
    if isinstance(sinfo, PrimStructInfo):
        if isinstance(sinfo.value, PrimExpr) and not _defined(sinfo.value, shape_var_map):
            return PrimStructInfo(sinfo.dtype)
        if isinstance(sinfo.value, PrimExpr) and shape_var_map:
            return PrimStructInfo(sinfo.dtype, analyzer.simplify(substitute(sinfo.value, shape_var_map)))
        return sinfo
    if isinstance(sinfo, ShapeStructInfo):
        if sinfo.values is None:
            return sinfo
        dims = _dims(sinfo.values, shape_var_map, analyzer)
        return ShapeStructInfo(ndim=sinfo.ndim) if dims is None else ShapeStructInfo(dims)
    if isinstance(sinfo, TensorStructInfo):
        shape = sinfo.shape
        if isinstance(shape, Var):
            shape = var_map.get(shape)
        if isinstance(shape, ShapeExpr):
            dims = _dims(shape.values, shape_var_map, analyzer)
            shape = None if dims is None else ShapeExpr(dims)
        if shape is None:
            return TensorStructInfo(dtype=sinfo.dtype, vdevice=sinfo.vdevice, ndim=sinfo.ndim)
        return TensorStructInfo(shape, sinfo.dtype, sinfo.vdevice)
    if isinstance(sinfo, TupleStructInfo):
        return TupleStructInfo([_erase(f, shape_var_map, var_map, analyzer) for f in sinfo.fields])
    if isinstance(sinfo, FuncStructInfo):
        return sinfo
    return sinfo
