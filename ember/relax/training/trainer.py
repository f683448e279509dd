"""``Trainer`` (TVM's ``relax.training.Trainer``): runs a module made by ``SetupTrainer`` on a
``VirtualMachine``, holding the parameters, model states and optimizer state between steps.

``predict(*inputs)`` runs ``backbone``; ``update(inputs, targets)`` runs
``backbone_loss_adjoint`` then ``optimizer`` and returns the loss.  Parameters start unset
(``zero_init_params``, ``xaiver_uniform_init_params`` or ``load_params`` set them); model
states start at zero unless ``zero_init_param_state`` is False.
"""

from __future__ import annotations

import numpy as np

from ember.error import TVMError
from ember.runtime.ndarray import NDArray
from ember.runtime.ndarray import array as nd_array

from .setup_trainer import ADJOINT, BACKBONE, OPTIMIZER

__all__ = ["Trainer"]


def _shape_dtype(var):
    sinfo = var.struct_info
    return [int(d) for d in sinfo.shape.values], str(sinfo.dtype)


def _as_array(value, device) -> NDArray:
    return value if isinstance(value, NDArray) else nd_array(np.asarray(value), device)


class Trainer:
    """Training state and steps for one training module."""

    def __init__(self, train_mod, vm, device, zero_init_param_state: bool = True):
        attrs = train_mod.attrs
        self.mod, self.vm, self.device = train_mod, vm, device
        self._input_num, self._param_num = int(attrs["input_num"]), int(attrs["param_num"])
        self._state_num = int(attrs["state_num"])
        params = list(train_mod[BACKBONE].params)
        self._param_vars = params[self._input_num:self._input_num + self._param_num]
        self._state_vars = params[self._input_num + self._param_num:]
        self._params: list | None = None
        self._states = [self._zeros(v) for v in self._state_vars] if zero_init_param_state else None
        self._optim_state = tuple(nd_array(s.numpy(), device) for s in attrs["optim_state"])

    def _zeros(self, var) -> NDArray:
        shape, dtype = _shape_dtype(var)
        return nd_array(np.zeros(shape, dtype), self.device)

    # -- parameters -----------------------------------------------------------------------
    def zero_init_params(self) -> None:
        """All parameters zero."""
        self._params = [self._zeros(v) for v in self._param_vars]

    def xaiver_uniform_init_params(self) -> None:  # TVM's spelling
        """Xavier (Glorot) uniform parameters: U(-a, a), a = sqrt(6 / (fan_in + fan_out))."""
        rng = np.random.default_rng()
        self._params = []
        for v in self._param_vars:
            shape, dtype = _shape_dtype(v)
            fan_in, fan_out = (shape[0], shape[-1]) if shape else (1, 1)
            bound = np.sqrt(6.0 / max(fan_in + fan_out, 1))
            self._params.append(nd_array(rng.uniform(-bound, bound, shape).astype(dtype), self.device))

    def load_params(self, params) -> None:
        """Set the parameters from a list (in order) or a dict keyed by parameter name."""
        if isinstance(params, dict):
            missing = [v.name_hint for v in self._param_vars if v.name_hint not in params]
            if missing:
                raise TVMError(f"Trainer.load_params: no value for parameters {missing}")
            params = [params[v.name_hint] for v in self._param_vars]
        if len(params) != self._param_num:
            raise TVMError(f"Trainer.load_params: expected {self._param_num} parameters, got {len(params)}")
        self._params = [_as_array(p, self.device) for p in params]

    def export_params(self) -> dict:
        """The parameters as a dict keyed by parameter name."""
        self._check_params()
        return {v.name_hint: p for v, p in zip(self._param_vars, self._params)}

    def _check_params(self) -> None:
        if self._params is None:
            raise TVMError("Trainer: the parameters are not initialized; call zero_init_params(), "
                           "xaiver_uniform_init_params() or load_params() first")
        if self._states is None and self._state_vars:
            raise TVMError("Trainer: the model states are not initialized")

    # -- running --------------------------------------------------------------------------
    def _inputs(self, values) -> list:
        values = list(values) if isinstance(values, list | tuple) else [values]
        return [_as_array(v, self.device) for v in values]

    def predict(self, *inputs):
        """The backbone's output for ``inputs`` (the model states are updated)."""
        self._check_params()
        out = self.vm[BACKBONE](*self._inputs(inputs), *self._params, *(self._states or []))
        if self._state_num:
            self._states = list(out[len(out) - self._state_num:])
            out = out[0] if len(out) - self._state_num == 1 else out[:len(out) - self._state_num]
        return out

    def _adjoint_args(self, inputs, targets) -> list:
        self._check_params()
        return [*self._inputs(inputs), *self._params, *(self._states or []), *self._inputs(targets)]

    def update(self, inputs, targets):
        """One training step; returns the loss."""
        (loss, *states), grads = self._split(self.vm[ADJOINT](*self._adjoint_args(inputs, targets)))
        params, self._optim_state = self.vm[OPTIMIZER](tuple(self._params), tuple(grads), self._optim_state)
        self._params = list(params)
        if self._state_num:
            self._states = states
        return loss

    def _split(self, result):
        value, grads = result
        return (list(value) if self._state_num else [value]), list(grads)

    def profile_adjoint(self, inputs, targets):
        """The VM's profile of one ``backbone_loss_adjoint`` call (a VM made with profile=True)."""
        return self.vm.profile(ADJOINT, *self._adjoint_args(inputs, targets))
