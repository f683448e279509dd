"""``relax.training`` (TVM's name): training with Relax gradients.  ``loss`` (loss functions as
Relax functions), ``AppendLoss`` (join a model and a loss), ``optimizer`` (SGD, MomentumSGD, Adam),
``SetupTrainer`` (model module → training module) and ``Trainer`` (runs it) and ``utils.register_te_gradient``
(gradients of ``call_tir_with_grad`` given as TE functions)."""

from . import loss, optimizer, utils  # noqa: F401
from .append_loss import AppendLoss
from .setup_trainer import SetupTrainer
from .trainer import Trainer

__all__ = ["AppendLoss", "SetupTrainer", "Trainer", "loss", "optimizer", "utils"]
