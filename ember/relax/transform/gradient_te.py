"""Gradients given as TE functions, for ``relax.call_tir_with_grad``.

``register_te_gradient(name, func)`` records ``func(output_grad, *inputs, **te_grad_kwargs)``,
which returns one ``te.Tensor`` per input: the adjoint of each.  The Gradient pass turns the
call's gradient into one ``call_tir`` of a PrimFunc made from ``func`` (named ``name``), and
the forward ``call_tir_with_grad`` into a plain ``call_tir``.
"""

from __future__ import annotations

from ember.error import TVMError
from ember.ir import Op, replace

from .. import op as R
from ..expr import Call, Tuple, TupleGetItem, VarBinding
from ..struct_info import TupleStructInfo
from .gradient_table import register_gradients

__all__ = ["register_te_gradient", "TE_GRADIENTS", "without_grad_annotation"]

TE_GRADIENTS: dict = {}


def register_te_gradient(te_grad_name: str, te_grad_func=None):
    """Register ``te_grad_func`` under ``te_grad_name`` (usable as a decorator)."""

    def register(func):
        TE_GRADIENTS[te_grad_name] = func
        return func

    return register(te_grad_func) if te_grad_func is not None else register


def without_grad_annotation(binding):
    """``binding`` with a ``call_tir_with_grad`` value replaced by the plain ``call_tir``."""
    value = getattr(binding, "value", None)
    if not (isinstance(value, Call) and isinstance(value.op, Op) and value.op.name == "relax.call_tir_with_grad"):
        return binding
    call = replace(value, op=Op.get("relax.call_tir"), attrs=None)
    call._set_struct_info(value.struct_info)
    return VarBinding(binding.var, call)


def _call_tir_with_grad(orig_var, orig_call, output_grad, ctx):
    name = orig_call.attrs.te_grad_name
    func = TE_GRADIENTS.get(name)
    if func is None:
        raise TVMError(f"Gradient: no TE gradient is registered as {name!r} (relax.training.utils.register_te_gradient)")
    gvar, args, *tir_vars = orig_call.args
    inputs = list(args.fields) if isinstance(args, Tuple) else [TupleGetItem(args, i)
                                                              for i in range(len(args.struct_info.fields))]
    kwargs = dict(orig_call.attrs.te_grad_kwargs or {})
    grad = ctx.emit(ctx.call_te(func, output_grad, *inputs, primfunc_name_hint=name, **kwargs))
    if isinstance(grad.struct_info, TupleStructInfo):
        adjoints = Tuple([TupleGetItem(grad, i) for i in range(len(inputs))])
    else:
        adjoints = Tuple([grad])
    return [R.grad.no_grad(gvar), adjoints] + [R.grad.no_grad(t) for t in tir_vars]


register_gradients({"relax.call_tir_with_grad": _call_tir_with_grad})
