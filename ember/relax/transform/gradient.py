"""``Gradient(func_name, require_grads=None, target_index=0)``: reverse-mode automatic
differentiation of one Relax function (TVM's pass of that name).

It adds ``<func_name>_adjoint`` to the module: the same parameters (fresh variables), the
forward bindings, then the backward bindings, returning ``(original_return, (adjoints...))``
with one adjoint per variable of ``require_grads`` (default: every parameter).

Assumes the function's body is exactly one dataflow block, and that the target — the
function's return value, or field ``target_index`` of a returned tuple — is a variable bound
to a float scalar tensor.  The backward pass visits the bindings in reverse; the adjoint of
each variable is emitted as soon as a contribution reaches it (``v_adjoint``; a later one
emits ``add(v_adjoint, contribution)``; ``gradient_simplify`` tidies transposes first), tuples
accumulating field by field.  An operator's contributions come from its ``FPrimalGradient``
attribute (``gradient_table*.py``); ``no_grad`` contributions are dropped.  Checkpoint markers
are handled by ``gradient_checkpoint.py``.  Variables the target does not depend on get zeros;
bindings that feed nothing are removed at the end.
"""

from __future__ import annotations

from ember.error import TVMError
from ember.ir import IRModule, Op
from ember.transform import Pass, module_pass

from .. import op as R
from ..analysis.vars import remove_all_unused
from ..block_builder import BlockBuilder
from ..copy_vars import copy_function_with_new_vars
from ..expr import Call, DataflowBlock, Expr, Function, SeqExpr, Tuple, TupleGetItem, Var, VarBinding
from ..struct_info import TensorStructInfo, TupleStructInfo
from .gradient_checkpoint import Checkpoints
from .gradient_simplify import simplify_adjoint
from .gradient_te import without_grad_annotation

__all__ = ["Gradient"]


class GradientError(TVMError, ValueError):
    """A function or target the Gradient pass cannot differentiate."""


def _zeros(sinfo) -> Expr:
    if isinstance(sinfo, TupleStructInfo):
        return Tuple([_zeros(f) for f in sinfo.fields])
    return R.zeros(sinfo.shape, sinfo.dtype)


def _is_zeros(expr: Expr) -> bool:
    return isinstance(expr, Call) and isinstance(expr.op, Op) and expr.op.name == "relax.zeros"


def _is_no_grad(expr: Expr) -> bool:
    return isinstance(expr, Call) and isinstance(expr.op, Op) and expr.op.name == "relax.grad.no_grad"


def _field(expr: Expr, i: int) -> Expr:
    return expr.fields[i] if isinstance(expr, Tuple) else TupleGetItem(expr, i)


class _Backward:
    """Emits the backward bindings into ``bb`` (inside the open dataflow block)."""

    def __init__(self, bb: BlockBuilder, checkpoints: Checkpoints):
        self.bb = bb
        self.checkpoints = checkpoints
        self.adjoint: dict[Var, Var] = {}  # keyed by the forward variable (identity-hashed)

    def _add(self, lhs: Expr, rhs: Expr) -> Expr:
        """``lhs + rhs`` for tensors, field by field for tuples (a nested tuple field is bound
        to a variable once); a zeros operand is skipped."""
        sinfo = lhs.struct_info_or_none() or rhs.struct_info_or_none()
        if isinstance(lhs, Tuple) or isinstance(rhs, Tuple) or isinstance(sinfo, TupleStructInfo):
            lhs, rhs = (e if isinstance(e, Tuple | Var) else self.bb.emit(e) for e in (lhs, rhs))
            n = len(lhs.fields) if isinstance(lhs, Tuple) else len(lhs.struct_info.fields)
            return Tuple([self._add(_field(lhs, i), _field(rhs, i)) for i in range(n)])
        if _is_zeros(rhs):
            return lhs
        if _is_zeros(lhs):
            return rhs
        return R.add(lhs, rhs)

    def update(self, base: Expr, increment: Expr) -> None:
        """Add ``increment`` to the adjoint of ``base`` (a variable, or a tuple of them)."""
        if isinstance(base, Var):
            old = self.adjoint.get(base)
            value = increment if old is None else self._add(old, increment)
            self.adjoint[base] = self.bb.emit(simplify_adjoint(self.bb, value), base.name_hint + "_adjoint")
        elif isinstance(base, Tuple):
            if not isinstance(increment, Tuple | Var):
                increment = self.bb.emit(increment)
            for i, f in enumerate(base.fields):
                self.update(f, _field(increment, i))
        # constants, shapes and other leaves have no adjoint

    def visit(self, binding) -> None:
        var = binding.var
        if var not in self.adjoint:
            return  # the target does not depend on it
        if not isinstance(binding, VarBinding):
            raise GradientError(f"Gradient: only variable bindings are supported, got {type(binding).__name__}")
        grad, value = self.adjoint[var], binding.value
        if isinstance(value, Var | Tuple):
            self.update(value, grad)
        elif isinstance(value, TupleGetItem):
            sinfo = value.tuple_value.struct_info
            fields = [grad if i == value.index else _zeros(f) for i, f in enumerate(sinfo.fields)]
            self.update(value.tuple_value, Tuple(fields))
        elif isinstance(value, Call):
            self._visit_call(var, value, grad)
        # constants, shapes and prim values: nothing to propagate

    def _visit_call(self, var: Var, call: Call, grad: Var) -> None:
        if not isinstance(call.op, Op):
            raise GradientError(f"Gradient: cannot differentiate a call of {call.op}")
        rule = call.op.get_attr("FPrimalGradient")
        if rule is None:
            raise GradientError(f"Gradient: operator {call.op.name} has no gradient (FPrimalGradient)")
        # a checkpointed segment's values are recomputed for the rule; adjoints go to the originals
        recomputed = self.checkpoints.recompute(call)
        if recomputed is not call:
            recomputed = self.bb.normalize(recomputed)
        contributions = rule(self.checkpoints.recompute(var), recomputed, grad, self.bb)
        for arg, contribution in zip(call.args, contributions):
            if not _is_no_grad(contribution):
                self.update(arg, contribution)


def _check_float(var: Var) -> None:
    def ok(sinfo) -> bool:
        if isinstance(sinfo, TupleStructInfo):
            return all(ok(f) for f in sinfo.fields)
        return isinstance(sinfo, TensorStructInfo) and sinfo.dtype is not None and sinfo.dtype.is_float

    if not ok(var.struct_info):
        raise GradientError(f"Gradient: {var.name_hint} must be a float tensor (or a tuple of them) to "
                            f"have a gradient, got {var.struct_info}")


def _target(func: Function, block: DataflowBlock, target_index: int) -> Var:
    ret = func.body.body
    if isinstance(ret, Tuple):
        if not 0 <= target_index < len(ret.fields):
            raise GradientError(f"Gradient: target_index {target_index} is out of range for a return "
                                f"tuple of {len(ret.fields)} fields")
        ret = ret.fields[target_index]
    elif target_index != 0:
        raise GradientError(f"Gradient: the function returns one value, so target_index must be 0, "
                            f"got {target_index}")
    if not isinstance(ret, Var):
        raise GradientError(f"Gradient: the target must be a variable, got {type(ret).__name__}")
    sinfo = ret.struct_info
    if not isinstance(sinfo, TensorStructInfo) or sinfo.ndim != 0:
        raise GradientError(f"Gradient: the target must be a scalar tensor, got {sinfo}")
    if sinfo.dtype is None or not sinfo.dtype.is_float:
        raise GradientError(f"Gradient: the target must be a float tensor, got dtype {sinfo.dtype}")
    return ret


def _differentiable_body(func) -> DataflowBlock:
    if not isinstance(func, Function):
        raise GradientError(f"Gradient: can only differentiate a Relax function, got {type(func).__name__}")
    body = func.body
    if not isinstance(body, SeqExpr) or len(body.blocks) != 1 or not isinstance(body.blocks[0], DataflowBlock):
        raise GradientError("Gradient: the function body must be exactly one dataflow block")
    return body.blocks[0]


def _required(func: Function, block: DataflowBlock, require_grads) -> list[Var]:
    if require_grads is None:
        wanted = list(func.params)
    elif isinstance(require_grads, Var):
        wanted = [require_grads]
    else:
        wanted = list(require_grads)
    known = set(func.params) | {b.var for b in block.bindings}
    for v in wanted:
        if v not in known:
            raise GradientError(f"Gradient: require_grads variable {v.name_hint} does not occur in the function")
        _check_float(v)
    if len(set(wanted)) != len(wanted):
        raise GradientError("Gradient: require_grads has duplicate variables")
    return wanted


def _adjoint_module(mod: IRModule, func: Function, name: str, require_grads, target_index: int) -> IRModule:
    block = _differentiable_body(func)
    target = _target(func, block, target_index)
    wanted = _required(func, block, require_grads)
    attrs = dict(func.attrs or {})
    if "global_symbol" in attrs:
        attrs["global_symbol"] = name
    bb = BlockBuilder(mod)  # kernels of TE gradients join the module
    with bb.function(name, list(func.params), attrs=attrs, pure=func.is_pure,
                     private="global_symbol" not in attrs):
        with bb.dataflow():
            checkpoints = Checkpoints(bb, block.bindings)
            for binding in checkpoints.bindings:
                bb.emit_normalized(without_grad_annotation(binding))
            backward = _Backward(bb, checkpoints)
            target_sinfo = target.struct_info
            backward.update(target, R.ones(target_sinfo.shape, target_sinfo.dtype))
            for binding in reversed(checkpoints.bindings):
                backward.visit(binding)
            outs = []
            for v in map(checkpoints.resolve, wanted):
                adjoint = backward.adjoint.get(v)
                if adjoint is None:
                    adjoint = bb.emit(_zeros(v.struct_info), v.name_hint + "_adjoint")
                outs.append(bb.emit_output(adjoint, v.name_hint + "_adjoint_out"))
        bb.emit_func_output(Tuple([func.body.body, Tuple(outs)]))
    out = bb.get()
    out[name] = copy_function_with_new_vars(remove_all_unused(out[name]))
    return out


def Gradient(func_name: str, require_grads=None, target_index: int = 0) -> Pass:  # noqa: N802 - TVM's name
    """Add ``<func_name>_adjoint`` computing the function's value and the gradients of its
    target with respect to ``require_grads`` (default: all parameters)."""

    def transform(mod: IRModule, ctx) -> IRModule:
        if func_name not in mod:
            raise ValueError(f"Gradient: the module has no function named {func_name!r}")
        return _adjoint_module(mod, mod[func_name], func_name + "_adjoint", require_grads, target_index)

    return module_pass(transform, opt_level=0, name="Gradient")
