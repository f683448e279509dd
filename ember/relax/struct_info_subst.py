"""Substitute symbolic ``tir.Var``s inside StructInfo (used when calling functions with
symbolic shapes, and by passes that specialise shapes)."""

from __future__ import annotations

from ember.ir import replace
from ember.tir.functor import substitute

from ._arith import simplify
from .expr import ShapeExpr
from .struct_info import (
    FuncStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo,
)

__all__ = ["substitute_sinfo", "erase_to_well_defined", "defined_tir_vars"]


def substitute_sinfo(sinfo: StructInfo, vmap: dict) -> StructInfo:
    """``sinfo`` with every tir Var in ``vmap`` replaced by its value."""
    if not vmap:
        return sinfo
    lookup = {id(k): v for k, v in vmap.items()}

    def sub(e):
        out = substitute(e, lambda v: lookup.get(id(v)))
        return e if out is e else simplify(out)

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


def defined_tir_vars(sinfos) -> list:
    """The symbolic vars that StructInfos define: those appearing as a whole dim."""
    from ember.ir import Var as TirVar

    from .struct_info import shape_values

    found: dict[int, object] = {}

    def walk(s):
        if isinstance(s, TupleStructInfo):
            for f in s.fields:
                walk(f)
            return
        if isinstance(s, PrimStructInfo) and isinstance(s.value, TirVar):
            found.setdefault(id(s.value), s.value)
        for d in shape_values(s) or ():
            if isinstance(d, TirVar):
                found.setdefault(id(d), d)

    for s in sinfos:
        walk(s)
    return list(found.values())


def erase_to_well_defined(sinfo: StructInfo, shape_var_map=None, var_map=None) -> StructInfo:
    """``sinfo`` with every dim that uses a tir Var outside ``shape_var_map`` made unknown
    (a tensor keeps its ndim and dtype); vars in the map are replaced by their values."""
    from ember.ir import Var as TirVar
    from ember.tir.functor import post_order_visit

    known = {id(k): v for k, v in (shape_var_map or {}).items()}

    def ok(e) -> bool:
        bad = []
        post_order_visit(e, lambda n: bad.append(n) if isinstance(n, TirVar) and id(n) not in known else None)
        return not bad

    if isinstance(sinfo, TensorStructInfo) and isinstance(sinfo.shape, ShapeExpr):
        if all(ok(v) for v in sinfo.shape.values):
            return substitute_sinfo(sinfo, {k: v for k, v in (shape_var_map or {}).items() if k is not v})
        return TensorStructInfo(None, sinfo.dtype, sinfo.vdevice, sinfo.ndim)
    if isinstance(sinfo, TensorStructInfo) and sinfo.shape is not None:
        if var_map is not None and id(sinfo.shape) in {id(k) for k in var_map}:
            return sinfo
        return TensorStructInfo(None, sinfo.dtype, sinfo.vdevice, sinfo.ndim)
    if isinstance(sinfo, ShapeStructInfo) and sinfo.values is not None:
        if all(ok(v) for v in sinfo.values):
            return sinfo
        return ShapeStructInfo(ndim=sinfo.ndim)
    if isinstance(sinfo, PrimStructInfo) and sinfo.value is not None and not ok(sinfo.value):
        return PrimStructInfo(sinfo.dtype)
    if isinstance(sinfo, TupleStructInfo):
        fields = [erase_to_well_defined(f, shape_var_map, var_map) for f in sinfo.fields]
        return sinfo if all(a is b for a, b in zip(fields, sinfo.fields)) else TupleStructInfo(fields)
    return sinfo
