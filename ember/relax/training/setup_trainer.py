"""``SetupTrainer(loss, optimizer, loss_args, legalize=True)``: a module pass that turns a model
module into a training module (TVM's ``relax.training.SetupTrainer``).

The input module holds the function ``backbone`` (parameters: inputs, then ``param_num``
trainable parameters, then ``state_num`` states; module attributes ``param_num`` and
``state_num``).  The result adds ``backbone_loss`` (``AppendLoss``), ``backbone_loss_adjoint``
(``Gradient`` w.r.t. the trainable parameters) and ``optimizer`` (one step of the optimizer),
the module attributes ``input_num`` and ``optim_state`` (the optimizer's initial state), and
is legalized when ``legalize``.
"""

from __future__ import annotations

from ember.ir import IRModule
from ember.transform import Pass, module_pass

from ..transform import Gradient, LegalizeOps
from .append_loss import AppendLoss

__all__ = ["SetupTrainer"]

BACKBONE, LOSS, ADJOINT, OPTIMIZER = "backbone", "backbone_loss", "backbone_loss_adjoint", "optimizer"


def _module_int(mod: IRModule, key: str) -> int:
    value = (mod.attrs or {}).get(key)
    if value is None:
        raise ValueError(f"SetupTrainer: the module needs the attribute {key!r} (I.module_attrs)")
    return int(value)


def SetupTrainer(loss, optimizer, loss_args, legalize: bool = True) -> Pass:  # noqa: N802 - TVM's name
    """The training module of a model module (see the module docstring)."""

    def transform(mod: IRModule, ctx) -> IRModule:
        param_num, state_num = _module_int(mod, "param_num"), _module_int(mod, "state_num")
        if BACKBONE not in mod:
            raise ValueError(f"SetupTrainer: the module has no function named {BACKBONE!r}")
        backbone = mod[BACKBONE]
        input_num = len(backbone.params) - param_num - state_num
        if input_num < 0:
            raise ValueError(f"SetupTrainer: {BACKBONE} has {len(backbone.params)} parameters, fewer than "
                             f"param_num + state_num = {param_num + state_num}")
        out = AppendLoss(BACKBONE, loss(*loss_args), loss.num_backbone_outputs, LOSS)(mod)
        trainable = list(out[LOSS].params[input_num:input_num + param_num])
        out = Gradient(LOSS, require_grads=trainable)(out)
        step = optimizer.init(list(backbone.params[input_num:input_num + param_num])).get_function()
        out[OPTIMIZER] = step.with_attr("global_symbol", OPTIMIZER)
        if legalize:
            out = LegalizeOps()(out)
        attrs = {"input_num": input_num, **{k: v for k, v in (mod.attrs or {}).items() if k != "input_num"},
                 "optim_state": optimizer.state}
        return IRModule(out.functions, attrs, getattr(out, "global_infos", None))

    return module_pass(transform, opt_level=0, name="SetupTrainer")
