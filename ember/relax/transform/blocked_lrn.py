"""The layout pass's rule for LRN kernels: an LRN whose input is channel-blocked
(``NCHW{b}c``) is computed in that layout by ``topi.nn.lrn_nchwc`` (already scheduled), so
the activations stay blocked through it with no layout transform either side.

An LRN is a ``call_tir`` of a PrimFunc carrying the attribute ``ember.lrn`` = (size, alpha,
beta, bias), as the ONNX importer writes it (``topi.nn.lrn_channels`` over axis 1).
"""

from __future__ import annotations

from ember.ir import GlobalVar

from ..expr import Call, Tuple
from .annotate_tir_op_pattern import OpPatternKind

__all__ = ["lrn_params", "blocked_lrn"]


def lrn_params(builder, call: Call):
    """(size, alpha, beta, bias) of an LRN ``call_tir``, else None."""
    if getattr(call.op, "name", None) != "relax.call_tir" or len(call.args) != 2:
        return None
    gv = call.args[0]
    if not isinstance(gv, GlobalVar):
        return None
    mod = builder.get()
    func = mod[gv] if gv in mod.functions else None
    attrs = getattr(func, "attrs", None)
    if attrs is None or "ember.lrn" not in attrs:
        return None
    size, alpha, beta, bias = (float(getattr(v, "value", v)) for v in attrs["ember.lrn"])
    return int(size), alpha, beta, bias


def blocked_lrn(builder, call: Call, init: str, cur, var):
    """(new call, initial layout, layout) computing the LRN ``call`` on ``var`` (its input in
    layout ``cur``) without leaving ``cur``, or None when that is not ``NCHW{b}c`` (or the
    window reaches past the next block)."""
    import re

    from ember import te, topi

    from ..op.call import call_tir
    from ..struct_info import TensorStructInfo, shape_values

    params = lrn_params(builder, call)
    if params is None or init != "NCHW" or re.fullmatch(r"NCHW\d+c", cur.name) is None:
        return None
    sinfo = var.struct_info_or_none()
    if not isinstance(sinfo, TensorStructInfo):
        return None
    dims = shape_values(sinfo)
    if dims is None or not all(hasattr(d, "value") for d in dims):
        return None
    size, alpha, beta, bias = params
    shape = [int(d.value) for d in dims]
    before, after = topi.nn.lrn_window_bounds(size)
    if max(before, after) > shape[-1]:
        return None
    data = te.placeholder(shape, str(sinfo.dtype), name="data")
    out = topi.nn.lrn_nchwc(data, size, alpha, beta, bias)
    func = topi.nn.schedule_lrn_nchwc(te.create_prim_func([data, out]))
    # its own kernel: fused with an elementwise consumer it would lose its schedule (FuseTIR
    # writes a new function) and no dlight rule schedules the result
    func = func.with_attr("op_pattern", int(OpPatternKind.kOpaque))
    gv = builder.add_func(func, "lrn_nchwc")
    new = call_tir(gv, Tuple([var]), TensorStructInfo(shape, str(sinfo.dtype)))
    return new, init, cur
