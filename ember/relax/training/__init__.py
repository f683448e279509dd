"""``relax.training`` (TVM's name): helpers for training with Relax gradients.  So far only
``utils.register_te_gradient`` (gradients of ``call_tir_with_grad`` given as TE functions)."""

from . import utils  # noqa: F401
