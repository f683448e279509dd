"""Optimizers (TVM's ``relax.training.optimizer``): ``SGD``, ``MomentumSGD``, ``Adam``.

``opt.init(params)`` takes the parameter variables (float tensors of one dtype, no repeats)
and sets ``opt.state``, the initial optimizer state as NDArrays; ``opt.get_function()``
returns the Relax function ``(params, gradients, optim_states) -> (params_new,
optim_states_new)`` that performs one step (every argument a tuple; ``optim_states[0]``
counts the steps).
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np

from ember.relax import op as R
from ember.runtime.ndarray import array as nd_array
from ember.relax.block_builder import BlockBuilder
from ember.relax.expr import Expr, Function, Tuple, TupleGetItem, Var, const
from ember.relax.struct_info import TensorStructInfo, TupleStructInfo, shape_values

__all__ = ["Optimizer", "SGD", "MomentumSGD", "Adam"]


def _complement(x: float) -> float:
    """``1 - x`` on the decimal value written (``1 - 0.8`` is 0.2, not 0.19999999999999996)."""
    return float(Decimal(1) - Decimal(repr(float(x))))


class Optimizer:
    """Base of the optimizers: parameter checking, the step counter and the function frame."""

    def __init__(self, name: str):
        self.name = name
        self.param_list: list[Var] | None = None
        self.dtype: str | None = None
        self.state = None

    def init(self, params) -> Optimizer:
        """Set the parameters to optimize (a variable or a list of them) and the initial state."""
        params = [params] if not isinstance(params, list | tuple) else list(params)
        dtypes = set()
        for p in params:
            if not isinstance(p, Var):
                raise ValueError(f"{self.name}: a parameter must be a relax.Var, got {type(p).__name__}")
            sinfo = p.struct_info
            if not isinstance(sinfo, TensorStructInfo) or sinfo.dtype is None or not sinfo.dtype.is_float:
                raise ValueError(f"{self.name}: parameter {p.name_hint} must be a float tensor, got {sinfo}")
            dtypes.add(str(sinfo.dtype))
        if len({id(p) for p in params}) != len(params):
            raise ValueError(f"{self.name}: the parameters contain duplicates")
        if len(dtypes) > 1:
            raise ValueError(f"{self.name}: the parameters must share one dtype, got {sorted(dtypes)}")
        self.param_list = params
        self.dtype = dtypes.pop() if dtypes else "float32"
        self.state = tuple(nd_array(a) for a in self._initial_state())
        return self

    def _zeros(self, p: Var):
        return np.zeros([int(d) for d in shape_values(p.struct_info)], self.dtype)

    def _initial_state(self) -> tuple:
        return (np.array(0, "int64"),)

    def _const(self, value: float) -> Expr:
        return const(value, self.dtype)

    def get_function(self) -> Function:
        """The Relax function of one optimization step."""
        if self.param_list is None:
            raise RuntimeError("Please call init() for the optimizer before calling get_function()")
        param_sinfo = TupleStructInfo([p.struct_info for p in self.param_list])
        state_sinfo = TupleStructInfo([self._state_sinfo(s) for s in self.state])
        params, grads = Var("params", param_sinfo), Var("gradients", param_sinfo)
        states = Var("optim_states", state_sinfo)
        bb = BlockBuilder()
        with bb.function(self.name, [params, grads, states]):
            with bb.dataflow():
                steps = bb.emit(TupleGetItem(states, 0), "num_steps")
                steps_new = bb.emit(R.add(steps, const(1, "int64")), "num_steps_new")
                new_params, new_states = self._step(bb, params, grads, states)
                params_new = bb.emit_output(Tuple(new_params), "params_new")
                states_new = bb.emit_output(Tuple([steps_new] + new_states), "optim_states_new")
            bb.emit_func_output(Tuple([params_new, states_new]))
        return bb.get()[self.name]

    @staticmethod
    def _state_sinfo(array) -> TensorStructInfo:
        return TensorStructInfo([int(d) for d in array.shape], str(array.dtype))

    def _param_and_grad(self, bb, params, grads, i):
        name = self.param_list[i].name_hint
        return bb.emit(TupleGetItem(params, i), name), bb.emit(TupleGetItem(grads, i), name + "_grad"), name

    def _decayed(self, bb, weight_decay: float, p, g, name):
        """``g + weight_decay * p`` (``g`` itself without weight decay)."""
        if not weight_decay:
            return g
        return bb.emit(R.add(R.multiply(self._const(weight_decay), p), g), name + "_grad_new")

    def _step(self, bb, params, grads, states):
        raise NotImplementedError


class SGD(Optimizer):
    """``p -= lr * (g + weight_decay * p)``."""

    def __init__(self, lr: float, weight_decay: float = 0):
        super().__init__("SGD")
        self.lr, self.weight_decay = float(lr), float(weight_decay)

    def _step(self, bb, params, grads, states):
        out = []
        for i in range(len(self.param_list)):
            p, g, name = self._param_and_grad(bb, params, grads, i)
            g = self._decayed(bb, self.weight_decay, p, g, name)
            out.append(bb.emit(R.subtract(p, R.multiply(self._const(self.lr), g)), name + "_new"))
        return out, []


class MomentumSGD(Optimizer):
    """``v = momentum * v + (1 - dampening) * g``; ``p -= lr * v`` (Nesterov: ``lr * (g + momentum * v)``)."""

    def __init__(self, lr: float, momentum: float, dampening: float = 0, weight_decay: float = 0,
                 nesterov: bool = False):
        super().__init__("MomentumSGD")
        self.lr, self.momentum, self.dampening = float(lr), float(momentum), float(dampening)
        self.weight_decay, self.nesterov = float(weight_decay), bool(nesterov)

    def _initial_state(self) -> tuple:
        return (np.array(0, "int64"), *[self._zeros(p) for p in self.param_list])

    def _step(self, bb, params, grads, states):
        out, velocities = [], []
        for i in range(len(self.param_list)):
            p, g, name = self._param_and_grad(bb, params, grads, i)
            v = bb.emit(TupleGetItem(states, 1 + i), name + "_v")
            g = self._decayed(bb, self.weight_decay, p, g, name)
            damped = R.multiply(self._const(_complement(self.dampening)), g) if self.dampening else g
            v_new = bb.emit(R.add(R.multiply(self._const(self.momentum), v), damped), name + "_v_new")
            step = v_new
            if self.nesterov:
                step = bb.emit(R.add(g, R.multiply(self._const(self.momentum), v_new)), name + "_g_nest")
            out.append(bb.emit(R.subtract(p, R.multiply(self._const(self.lr), step)), name + "_new"))
            velocities.append(v_new)
        return out, velocities


class Adam(Optimizer):
    """Adam: moving averages ``m``, ``v`` of the gradient and its square, bias-corrected by the
    running products of ``beta1`` and ``beta2`` (kept in the state)."""

    def __init__(self, lr: float, betas=(0.9, 0.999), eps: float = 1e-08, weight_decay: float = 0):
        super().__init__("Adam")
        self.lr, self.eps, self.weight_decay = float(lr), float(eps), float(weight_decay)
        self.beta1, self.beta2 = (float(b) for b in betas)

    def _initial_state(self) -> tuple:
        ones = [np.array(1, self.dtype)] * 2
        return (np.array(0, "int64"), *ones, *[self._zeros(p) for p in self.param_list],
                *[self._zeros(p) for p in self.param_list])

    def _step(self, bb, params, grads, states):
        n = len(self.param_list)
        beta1_prod = bb.emit(R.multiply(bb.emit(TupleGetItem(states, 1)), self._const(self.beta1)), "beta1_prod")
        beta2_prod = bb.emit(R.multiply(bb.emit(TupleGetItem(states, 2)), self._const(self.beta2)), "beta2_prod")
        out, ms, vs = [], [], []
        for i in range(n):
            p, g, name = self._param_and_grad(bb, params, grads, i)
            m = bb.emit(TupleGetItem(states, 3 + i), name + "_m")
            v = bb.emit(TupleGetItem(states, 3 + n + i), name + "_v")
            g = self._decayed(bb, self.weight_decay, p, g, name)
            m_new = bb.emit(R.add(R.multiply(self._const(self.beta1), m),
                                  R.multiply(self._const(_complement(self.beta1)), g)), name + "_m_new")
            v_new = bb.emit(R.add(R.multiply(self._const(self.beta2), v),
                                  R.multiply(self._const(_complement(self.beta2)), R.multiply(g, g))), name + "_v_new")
            m_hat = bb.emit(R.divide(m_new, R.subtract(self._const(1), beta1_prod)), name + "_m_hat")
            v_hat = bb.emit(R.divide(v_new, R.subtract(self._const(1), beta2_prod)), name + "_v_hat")
            update = R.divide(m_hat, R.add(R.sqrt(v_hat), self._const(self.eps)))
            out.append(bb.emit(R.subtract(p, R.multiply(self._const(self.lr), update)), name + "_new"))
            ms.append(m_new)
            vs.append(v_new)
        return out, [beta1_prod, beta2_prod] + ms + vs
