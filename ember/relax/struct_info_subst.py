"""Substitute symbolic ``tir.Var``s inside StructInfo (used when calling functions with
symbolic shapes, and by passes that specialise shapes)."""

from __future__ import annotations

from ember.ir import replace
from ember.tir.functor import substitute

from .expr import ShapeExpr
from .struct_info import (
    FuncStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo,
)

__all__ = ["substitute_sinfo"]


def substitute_sinfo(sinfo: StructInfo, vmap: dict) -> StructInfo:
    """``sinfo`` with every tir Var in ``vmap`` replaced by its value."""
    if not vmap:
        return sinfo
    lookup = {id(k): v for k, v in vmap.items()}

    def sub(e):
        return substitute(e, lambda v: lookup.get(id(v)))

    if isinstance(sinfo, TensorStructInfo):
        if isinstance(sinfo.shape, ShapeExpr):
            values = tuple(sub(v) for v in sinfo.shape.values)
            if all(a is b for a, b in zip(values, sinfo.shape.values)):
                return sinfo
            return TensorStructInfo(list(values), sinfo.dtype, sinfo.vdevice)
        return sinfo
    if isinstance(sinfo, ShapeStructInfo) and sinfo.values is not None:
        return ShapeStructInfo([sub(v) for v in sinfo.values])
    if isinstance(sinfo, PrimStructInfo) and sinfo.value is not None:
        return PrimStructInfo(sinfo.dtype, sub(sinfo.value))
    if isinstance(sinfo, TupleStructInfo):
        return TupleStructInfo([substitute_sinfo(f, vmap) for f in sinfo.fields])
    if isinstance(sinfo, FuncStructInfo) and sinfo.params is not None:
        return FuncStructInfo([substitute_sinfo(p, vmap) for p in sinfo.params], substitute_sinfo(sinfo.ret, vmap), sinfo.purity)
    return replace(sinfo)
