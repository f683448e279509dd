"""``AppendLoss(func_name, loss_function, num_backbone_outputs=1, new_func_name=None)``: a module
pass adding ``<func_name>_loss``, the model function followed by the loss (TVM's
``relax.training.AppendLoss``).

The new function takes the model's parameters, then the loss's parameters beyond the first
``num_backbone_outputs`` (which receive the model's first outputs, whose struct info must
match); it returns the loss, followed by the model's remaining outputs, if any.  Both
functions must be one dataflow block; the model returns tensor variables (no nested tuples),
the loss one scalar tensor variable.
"""

from __future__ import annotations

from ember.error import TVMError
from ember.ir import IRModule, structural_equal
from ember.transform import Pass, module_pass

from ..block_builder import BlockBuilder
from ..copy_vars import copy_function_with_new_vars
from ..expr import DataflowBlock, DataflowVar, Function, SeqExpr, Tuple, Var, VarBinding
from ..struct_info import TensorStructInfo
from ..transform.gradient_checkpoint import substitute_vars

__all__ = ["AppendLoss"]


class AppendLossError(TVMError, ValueError):
    """A model and loss function that cannot be joined."""


def _block(func: Function, what: str) -> DataflowBlock:
    body = func.body
    if not isinstance(body, SeqExpr) or len(body.blocks) != 1 or not isinstance(body.blocks[0], DataflowBlock):
        raise AppendLossError(f"AppendLoss: the {what} function must be exactly one dataflow block")
    return body.blocks[0]


def _outputs(func: Function) -> list:
    ret = func.body.body
    return list(ret.fields) if isinstance(ret, Tuple) else [ret]


def _append(mod: IRModule, func_name: str, loss: Function, n: int, new_name: str) -> IRModule:
    if func_name not in mod:
        raise ValueError(f"AppendLoss: the module has no function named {func_name!r}")
    backbone = copy_function_with_new_vars(mod[func_name])
    loss = copy_function_with_new_vars(loss)
    back_block, loss_block = _block(backbone, "backbone"), _block(loss, "loss")
    outs = _outputs(backbone)
    for i, v in enumerate(outs):
        if not isinstance(v, Var) or not isinstance(v.struct_info, TensorStructInfo):
            raise AppendLossError(f"AppendLoss: backbone output {i} must be a tensor variable (no nested tuples), "
                                  f"got {type(v).__name__} of {v.struct_info}")
    ret = loss.body.body
    if not isinstance(ret, Var) or not isinstance(ret.struct_info, TensorStructInfo) or ret.struct_info.ndim != 0:
        raise AppendLossError(f"AppendLoss: the loss function must return one scalar tensor variable, got "
                              f"{type(ret).__name__} of {ret.struct_info}")
    if n > len(outs) or n > len(loss.params):
        raise AppendLossError(f"AppendLoss: num_backbone_outputs is {n}, but the backbone returns {len(outs)} "
                              f"values and the loss takes {len(loss.params)} parameters")
    for i in range(n):
        if not structural_equal(outs[i].struct_info, loss.params[i].struct_info):
            raise AppendLossError(f"AppendLoss: backbone output {i} has struct info {outs[i].struct_info}, "
                                  f"the loss parameter {loss.params[i].name_hint} {loss.params[i].struct_info}")
    kept = {v for v in outs[n:] if isinstance(v, Var)}
    fed = {v for v in outs[:n] if isinstance(v, Var)}
    subst: dict = {}

    def fresh(v):
        return subst.get(v, v)

    bb = BlockBuilder()
    with bb.function(new_name, list(backbone.params) + list(loss.params[n:])):
        with bb.dataflow():
            for b in back_block.bindings:
                var = b.var
                if var in fed and var not in kept and not isinstance(var, DataflowVar):
                    var = subst[b.var] = DataflowVar(b.var.name_hint, b.var.struct_info)
                value = substitute_vars(b.value, fresh)
                bb.emit_normalized(b if var is b.var and value is b.value else VarBinding(var, value))
            for p, v in zip(loss.params[:n], outs[:n]):
                subst[p] = substitute_vars(v, fresh)
            for b in loss_block.bindings:
                value = substitute_vars(b.value, fresh)
                bb.emit_normalized(b if value is b.value else VarBinding(b.var, bb.normalize(value)))
        loss_out = substitute_vars(loss.body.body, fresh)
        rest = [substitute_vars(v, fresh) for v in outs[n:]]
        bb.emit_func_output(Tuple([loss_out] + rest) if rest else loss_out)
    out = mod.copy()
    out[new_name] = bb.get()[new_name]
    return out


def AppendLoss(func_name: str, loss_function: Function, num_backbone_outputs: int = 1,  # noqa: N802 - TVM's name
               new_func_name: str | None = None) -> Pass:
    """Add ``new_func_name`` (default ``<func_name>_loss``): the model function then the loss."""

    def transform(mod: IRModule, ctx) -> IRModule:
        return _append(mod, func_name, loss_function, num_backbone_outputs, new_func_name or func_name + "_loss")

    return module_pass(transform, opt_level=0, name="AppendLoss")
