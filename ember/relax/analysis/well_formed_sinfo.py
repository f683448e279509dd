"""Struct-info rules of the well-formed checker (see well_formed.py).

* ``binding_conflict``: a bound variable's annotation may be less precise than its value's
  struct info, but must not contradict it (another kind, dtype, rank or constant dim).
* ``call_tir_errors``: the tensors a ``call_tir`` / ``call_tir_inplace`` passes must match
  the PrimFunc's buffers in rank, dtype and shape; symbolic buffer dims are bound from the
  inputs first, so an output shape the inputs fix is checked too.
"""

from __future__ import annotations

from ember.ir import IntImm, PrimExpr, Var as TirVar

from ..expr import Call, Tuple
from ..struct_info import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo, TupleStructInfo,
    shape_values,
)

__all__ = ["binding_conflict", "call_tir_errors"]


def _const(e):
    return e.value if isinstance(e, IntImm) else (e if isinstance(e, int) else None)


def binding_conflict(annotation, inferred) -> str | None:
    """Why ``annotation`` cannot describe a value of ``inferred`` struct info (None if it can)."""
    if annotation is None or inferred is None or isinstance(annotation, ObjectStructInfo):
        return None
    if isinstance(inferred, ObjectStructInfo):
        return None  # nothing known about the value: a run-time question
    kinds = (TensorStructInfo, ShapeStructInfo, TupleStructInfo, PrimStructInfo, FuncStructInfo)
    kind_a = next((k for k in kinds if isinstance(annotation, k)), None)
    kind_i = next((k for k in kinds if isinstance(inferred, k)), None)
    if kind_a is None or kind_i is None:
        return None
    if kind_a is not kind_i:
        return f"annotated {kind_a.__name__} but the value is {kind_i.__name__}"
    if isinstance(annotation, TupleStructInfo):
        if len(annotation.fields) != len(inferred.fields):
            return f"annotated a tuple of {len(annotation.fields)} fields but the value has {len(inferred.fields)}"
        for k, (a, b) in enumerate(zip(annotation.fields, inferred.fields)):
            why = binding_conflict(a, b)
            if why:
                return f"field {k}: {why}"
        return None
    if isinstance(annotation, TensorStructInfo | PrimStructInfo):
        da, di = annotation.dtype, inferred.dtype
        if da is not None and di is not None and str(da) != str(di):
            return f"annotated dtype {da} but the value is {di}"
    if isinstance(annotation, TensorStructInfo | ShapeStructInfo):
        na, ni = annotation.ndim, inferred.ndim
        if na != -1 and ni != -1 and na != ni:
            return f"annotated rank {na} but the value has rank {ni}"
        va, vi = shape_values(annotation), shape_values(inferred)
        if va is not None and vi is not None and len(va) == len(vi):
            for k, (a, b) in enumerate(zip(va, vi)):
                ca, cb = _const(a), _const(b)
                if ca is not None and cb is not None and ca != cb:
                    return f"annotated dim {k} = {ca} but the value has {cb}"
    return None


def _tensor_infos(sinfo) -> list:
    return list(sinfo.fields) if isinstance(sinfo, TupleStructInfo) else [sinfo]


def call_tir_errors(call: Call, mod) -> list[str]:
    """Mismatches between a call_tir's tensors and the PrimFunc it calls (empty if none found)."""
    from ember.tir import PrimFunc

    if mod is None or len(call.args) < 2 or not call.sinfo_args:
        return []
    gv = call.args[0]
    name = getattr(gv, "name_hint", None)
    func = mod[name] if name is not None and name in mod else None
    if not isinstance(func, PrimFunc):
        return []
    inputs = list(call.args[1].fields) if isinstance(call.args[1], Tuple) else [call.args[1]]
    in_infos = [a.struct_info_or_none() for a in inputs]
    out_infos = _tensor_infos(call.sinfo_args[0])
    inplace = getattr(call.attrs, "inplace_indices", None)
    checked_inplace = []
    if inplace is not None:  # an output written in place is that input: only the others are parameters
        all_outs = out_infos
        checked_inplace = [(in_infos[int(k)], s) for s, k in zip(all_outs, inplace) if 0 <= int(k) < len(in_infos)]
        out_infos = [s for s, k in zip(all_outs, inplace) if int(k) == -1]
    buffers = [func.buffer_map[p] for p in func.params if p in func.buffer_map]
    errors = []
    for k, (arg, out) in enumerate(checked_inplace):
        why = binding_conflict(out, arg)
        if why:
            errors.append(f"call_tir_inplace of {name}: output {k} reuses an input but is {why}")
    if len(buffers) < len(in_infos) + len(out_infos):
        return errors + [f"call_tir of {name}: {len(in_infos)} inputs and {len(out_infos)} outputs but the "
                         f"PrimFunc has {len(buffers)} buffer parameters"]
    binding: dict = {}
    pairs = [("input", k, s, b) for k, (s, b) in enumerate(zip(in_infos, buffers))]
    pairs += [("output", k, s, b) for k, (s, b) in enumerate(zip(out_infos, buffers[len(in_infos):]))]
    for role, k, sinfo, buf in pairs:
        why = _buffer_mismatch(sinfo, buf, binding)
        if why:
            errors.append(f"call_tir of {name}: {role} {k} {why}")
    return errors


def _buffer_mismatch(sinfo, buf, binding: dict) -> str | None:
    if not isinstance(sinfo, TensorStructInfo):
        return None
    if sinfo.dtype is not None and str(sinfo.dtype) != str(buf.dtype):
        return f"has dtype {sinfo.dtype} but buffer {buf.name} is {buf.dtype}"
    if sinfo.ndim != -1 and sinfo.ndim != len(buf.shape):
        return f"has rank {sinfo.ndim} but buffer {buf.name} has {len(buf.shape)} dims"
    values = shape_values(sinfo)
    if values is None or len(values) != len(buf.shape):
        return None
    from ember.tir.functor import substitute
    from ember.tir.schedule import _arith

    for axis, (value, dim) in enumerate(zip(values, buf.shape)):
        if isinstance(dim, TirVar) and dim not in binding:
            binding[dim] = value
            continue
        expected = _arith.simplify(substitute(dim, binding)) if isinstance(dim, PrimExpr) else dim
        a, b = _const(expected), _const(value)
        if a is not None and b is not None and a != b:
            return f"has dim {axis} = {b} but buffer {buf.name} needs {a}"
    return None
