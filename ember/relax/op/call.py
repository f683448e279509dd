"""Calls out of the graph: ``call_tir`` (to a PrimFunc in the module, destination-passing),
``call_dps_packed`` / ``call_pure_packed`` (to registered packed functions), plus the
small utility ops ``shape_of``, ``null_value``, ``print``, ``assert_op``, ``invoke_closure``
and ``call_builtin_with_ctx``."""

from __future__ import annotations

from ember.ir import GlobalVar, node

from ..expr import Call, Expr, ExternFunc, ShapeExpr, Tuple
from ..struct_info import (
    ObjectStructInfo, ShapeStructInfo, StructInfo, TupleStructInfo,
)
from .attrs import Attrs
from .base import as_operand, make_call, register, tensor_arg

__all__ = [
    "call_tir", "call_tir_inplace", "call_dps_packed", "call_pure_packed", "shape_of", "null_value",
    "print", "assert_op", "invoke_closure", "invoke_pure_closure", "call_builtin_with_ctx", "make_closure",
    "call_tir_with_grad",
]


def _out_sinfo(out_sinfo) -> StructInfo:
    if isinstance(out_sinfo, list | tuple):
        infos = list(out_sinfo)
        return infos[0] if len(infos) == 1 else TupleStructInfo(infos)
    if not isinstance(out_sinfo, StructInfo):
        raise TypeError(f"out_sinfo must be a TensorStructInfo or a list of them, got {type(out_sinfo).__name__}")
    return out_sinfo


def _args_tuple(args) -> Expr:
    if isinstance(args, Expr) and isinstance(args.struct_info_or_none(), TupleStructInfo):
        return args
    if isinstance(args, Expr):
        return Tuple([args])
    return Tuple([as_operand(a) for a in args])


def _infer_from_sinfo_args(call: Call, ctx) -> StructInfo:
    if not call.sinfo_args:
        return ObjectStructInfo()
    return call.sinfo_args[0]


def _infer_call_tir(call: Call, ctx) -> StructInfo:
    if not call.sinfo_args:
        raise ValueError(f"{call.op.name} needs out_sinfo")
    callee = call.args[0]
    if not isinstance(callee, GlobalVar | ExternFunc):
        raise TypeError(f"{call.op.name}: the callee must be a GlobalVar, got {type(callee).__name__}")
    if not isinstance(call.args[1].struct_info, TupleStructInfo):
        raise TypeError(f"{call.op.name}: args must be a tuple, got {type(call.args[1].struct_info).__name__}")
    return call.sinfo_args[0]


for _n in ("call_tir", "call_tir_inplace", "call_tir_with_grad"):
    register(_n, _infer_call_tir, arg_names=("gvar", "args", "tir_vars"))
register("call_dps_packed", _infer_from_sinfo_args, arg_names=("func", "args"))  # assumed pure, as in TVM
register("call_pure_packed", _infer_from_sinfo_args, arg_names=("func",))
register("call_builtin_with_ctx", _infer_from_sinfo_args, arg_names=("func", "args"), purity=False)
register("invoke_closure", _infer_from_sinfo_args, arg_names=("closure", "args"), purity=False)
register("invoke_pure_closure", _infer_from_sinfo_args, arg_names=("closure", "args"))
register("make_closure", lambda call, ctx: ObjectStructInfo(), arg_names=("func", "args"))


def call_tir(gvar, args, out_sinfo, tir_vars=None) -> Call:
    """Call the PrimFunc ``gvar`` with ``args`` and freshly allocated outputs of ``out_sinfo``."""
    call_args = [gvar, _args_tuple(args)]
    if tir_vars is not None:
        call_args.append(tir_vars if isinstance(tir_vars, Expr) else ShapeExpr(tir_vars))
    from ember.ir import Op

    return Call(Op.get("relax.call_tir"), call_args, None, [_out_sinfo(out_sinfo)])


@node
class CallTIRWithGradAttrs(Attrs):
    te_grad_name: str
    te_grad_kwargs: dict = None


def call_tir_with_grad(gvar, args, out_sinfo, te_grad_name: str, te_grad_kwargs=None, tir_vars=None) -> Call:
    """``call_tir`` whose gradient (for ``relax.transform.Gradient``) is the TE function registered
    as ``te_grad_name`` (``relax.training.utils.register_te_gradient``), called with the output
    gradient, the arguments and ``te_grad_kwargs``."""
    call_args = [gvar, _args_tuple(args)]
    if tir_vars is not None:
        call_args.append(tir_vars if isinstance(tir_vars, Expr) else ShapeExpr(tir_vars))
    from ember.ir import Op

    attrs = CallTIRWithGradAttrs(str(te_grad_name), dict(te_grad_kwargs or {}))
    return Call(Op.get("relax.call_tir_with_grad"), call_args, attrs, [_out_sinfo(out_sinfo)])


@node
class CallTIRInplaceAttrs(Attrs):
    inplace_indices: tuple


def call_tir_inplace(gvar, args, inplace_indices, out_sinfo, tir_vars=None) -> Call:
    """Like call_tir, but outputs ``i`` reuse the argument ``inplace_indices[i]`` (-1: new)."""
    call_args = [gvar, _args_tuple(args)]
    if tir_vars is not None:
        call_args.append(ShapeExpr(tir_vars) if not isinstance(tir_vars, Expr) else tir_vars)
    idx = (inplace_indices,) if isinstance(inplace_indices, int) else tuple(inplace_indices)
    from ember.ir import Op

    return Call(Op.get("relax.call_tir_inplace"), call_args, CallTIRInplaceAttrs(idx), [_out_sinfo(out_sinfo)])


def _callee(func) -> Expr:
    return ExternFunc(func) if isinstance(func, str) else func


def call_dps_packed(func, args, out_sinfo) -> Call:
    """Call the packed function ``func`` (a name or ExternFunc) destination-passing style."""
    from ember.ir import Op

    return Call(Op.get("relax.call_dps_packed"), [_callee(func), _args_tuple(args)], None, [_out_sinfo(out_sinfo)])


def _sinfo_list(sinfo_args) -> list:
    """A list of struct infos; TVMScript's bare words (``R.Tuple``, ``R.Object``) are accepted."""
    infos = sinfo_args if isinstance(sinfo_args, list | tuple) else [sinfo_args]
    return [s.as_struct_info() if hasattr(s, "as_struct_info") else s for s in infos]


def call_pure_packed(func, *args, sinfo_args) -> Call:
    """Call the packed function ``func`` and treat the call as pure."""
    from ember.ir import Op

    infos = _sinfo_list(sinfo_args)
    return Call(Op.get("relax.call_pure_packed"), [_callee(func)] + [as_operand(a) for a in args], None, infos)


def call_builtin_with_ctx(func, args, sinfo_args=None) -> Call:
    from ember.ir import Op

    infos = [] if sinfo_args is None else (sinfo_args if isinstance(sinfo_args, list | tuple) else [sinfo_args])
    return Call(Op.get("relax.call_builtin_with_ctx"), [_callee(func), _args_tuple(args)], None, infos)


def invoke_closure(closure, args, sinfo_args) -> Call:
    from ember.ir import Op

    infos = sinfo_args if isinstance(sinfo_args, list | tuple) else [sinfo_args]
    return Call(Op.get("relax.invoke_closure"), [closure, _args_tuple(args)], None, infos)


def invoke_pure_closure(closure, args, sinfo_args) -> Call:
    """Call a closure (made by ``make_closure``) known to have no side effect."""
    from ember.ir import Op

    infos = sinfo_args if isinstance(sinfo_args, list | tuple) else [sinfo_args]
    return Call(Op.get("relax.invoke_pure_closure"), [closure, _args_tuple(args)], None, infos)


def make_closure(func, args) -> Call:
    return make_call("make_closure", [func, _args_tuple(args)])


def _infer_shape_of(call: Call, ctx) -> ShapeStructInfo:
    x = tensor_arg(call, 0)
    from ..struct_info import shape_values

    values = shape_values(x)
    return ShapeStructInfo(values) if values is not None else ShapeStructInfo(ndim=x.ndim)


register("shape_of", _infer_shape_of, arg_names=("expr",))


def shape_of(expr) -> Call:
    """The shape of a tensor as a Relax shape value."""
    return make_call("shape_of", [expr])


register("null_value", lambda call, ctx: ObjectStructInfo())


def null_value() -> Call:
    return make_call("null_value", [])


@node
class PrintAttrs(Attrs):
    format: str = ""


register("print", lambda call, ctx: ObjectStructInfo(), purity=False)
register("assert_op", lambda call, ctx: ObjectStructInfo(), purity=False)


def print(*values, format: str = "") -> Call:  # noqa: A001 - TVM's name
    return make_call("print", list(values), PrintAttrs(format))


def assert_op(condition, format_args=None, *more_args, format: str = "") -> Call:  # noqa: A002
    """Fail at run time unless ``condition``; ``format_args`` fill ``format`` in the message."""
    if format_args is None:
        extra = []
    elif isinstance(format_args, list | tuple):
        extra = list(format_args)
    else:
        extra = [format_args]
    return make_call("assert_op", [condition] + extra + list(more_args), PrintAttrs(format))


