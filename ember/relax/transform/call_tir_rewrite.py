"""CallTIRRewrite: make the outputs of ``call_tir`` / ``call_dps_packed`` explicit.

``y = call_tir(f, (x, w), out_sinfo, tir_vars)`` becomes
``y = builtin.alloc_tensor(shape, dtype, 0)`` then ``_ = f(x, w, y, *tir_vars)``
(destination-passing: the callee writes into ``y``); several outputs are allocated one
by one and ``y`` is bound to their tuple.  ``call_tir_inplace`` writes into the inputs
named by ``inplace_indices`` instead of allocating.  ``call_dps_packed`` is rewritten
the same way with the packed function as callee; ``call_pure_packed(f, *args)`` becomes
the plain call ``f(*args)``.

Assumes a normalised, non-dataflow function (run ToNonDataflow first: the DPS calls it
emits are not pure).  Output shapes must be known (constants or symbolic PrimExprs).
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule, Op

from ..backend.ir_util import rewrite_bindings
from ..expr import Call, Function, PrimValue, ShapeExpr, Tuple, Var, VarBinding
from ..op.builtin import alloc_tensor
from ..struct_info import TensorStructInfo, TupleStructInfo, shape_values

__all__ = ["CallTIRRewrite", "call_tir_rewrite"]

_DPS_OPS = ("relax.call_tir", "relax.call_tir_inplace", "relax.call_dps_packed")
VOID = TupleStructInfo([])


def _op_name(call) -> str | None:
    return call.op.name if isinstance(call, Call) and isinstance(call.op, Op) else None


def _alloc(sinfo, what: str, index: int) -> Call:
    if not isinstance(sinfo, TensorStructInfo):
        raise TypeError(f"{what}: output {index} must be a TensorStructInfo, got {type(sinfo).__name__}")
    values = shape_values(sinfo)
    if values is None or sinfo.dtype is None:
        raise ValueError(
            f"{what}: output {index} needs a known shape and dtype to be allocated, got "
            f"shape={'unknown' if values is None else 'known'}, dtype={sinfo.dtype}"
        )
    call = alloc_tensor(ShapeExpr(values), str(sinfo.dtype))
    call._set_struct_info(TensorStructInfo(list(values), str(sinfo.dtype)))
    return call


def _callee_name(callee) -> str:
    return callee.name_hint if isinstance(callee, GlobalVar) else getattr(callee, "global_symbol", "?")


def _dps_bindings(var: Var, call: Call) -> list:
    """The bindings that replace ``var = call`` (a DPS op call)."""
    name = _op_name(call)
    callee, args = call.args[0], call.args[1]
    what = f"{name[6:]}({_callee_name(callee)})"
    inputs = list(args.fields) if isinstance(args, Tuple) else [args]
    out_sinfo = call.sinfo_args[0]
    outs = list(out_sinfo.fields) if isinstance(out_sinfo, TupleStructInfo) else [out_sinfo]
    inplace = call.attrs.inplace_indices if name == "relax.call_tir_inplace" else (-1,) * len(outs)
    single = not isinstance(out_sinfo, TupleStructInfo)
    bindings: list = []
    out_vars: list = []
    for i, sinfo in enumerate(outs):
        if inplace[i] >= 0:
            out_vars.append(inputs[inplace[i]])
            continue
        alloc = _alloc(sinfo, what, i)
        out_var = var if single else Var(f"{var.name_hint}_alloc{i}", alloc.struct_info)
        bindings.append(VarBinding(out_var, alloc))
        out_vars.append(out_var)
    extra = []
    if len(call.args) > 2:
        tir_vars = call.args[2]
        values = tir_vars.values if isinstance(tir_vars, ShapeExpr) else shape_values(tir_vars.struct_info)
        extra = [PrimValue(v) for v in values]
    fresh = [v for v, idx in zip(out_vars, inplace) if idx < 0]  # in-place outputs are inputs already
    dps = Call(callee, inputs + fresh + extra, struct_info=VOID)
    bindings.append(VarBinding(Var("_", VOID), dps))
    if single and inplace[0] >= 0:
        bindings.append(VarBinding(var, out_vars[0]))
    elif not single:
        bindings.append(VarBinding(var, Tuple(out_vars)))
    return bindings


def _rewrite_binding(b):
    if not isinstance(b, VarBinding):
        return None
    name = _op_name(b.value)
    if name in _DPS_OPS:
        return _dps_bindings(b.var, b.value)
    if name == "relax.call_pure_packed":
        call = b.value
        sinfo = call.struct_info_or_none()
        return [VarBinding(b.var, Call(call.args[0], call.args[1:], None, call.sinfo_args, struct_info=sinfo))]
    return None


def _rewrite_body(body):
    if _op_name(body) in _DPS_OPS + ("relax.call_pure_packed",):
        var = Var("ret", body.struct_info)
        return _rewrite_binding(VarBinding(var, body)), var
    return None


def call_tir_rewrite(func: Function) -> Function:
    """``func`` with every DPS call made explicit (see module docstring)."""
    return rewrite_bindings(func, _rewrite_binding, _rewrite_body)


def CallTIRRewrite():  # noqa: N802 - TVM's pass name
    """The pass: rewrite every Relax function of the module."""
    from ember.transform import module_pass

    @module_pass(opt_level=0, name="CallTIRRewrite")
    def _pass(mod: IRModule, ctx) -> IRModule:
        funcs = {gv: call_tir_rewrite(f) if isinstance(f, Function) else f for gv, f in mod.functions.items()}
        if all(funcs[gv] is f for gv, f in mod.functions.items()):
            return mod
        return mod.with_functions(funcs)

    return _pass
