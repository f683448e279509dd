"""A tiny model-building API over ``relax.BlockBuilder`` (TVM's ``relax.testing.nn``).

Used inside ``with bb.function(...)``: ``Placeholder`` makes an input Var, ``Parameter`` a
weight Var, ``emit`` / ``emit_te`` bind values in the current BlockBuilder, and a
``Module`` subclass defines ``forward``; ``module.parameters()`` lists the weight Vars it
(and its sub-modules) hold, in attribute order, for ``emit_func_output(out, params)``.
Both kinds of Var are plain ``relax.Var``s, so built functions compare structurally
equal to parsed ones.  Not supported: ``Module.define_subroutine``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ember import topi
from ember.relax.block_builder import BlockBuilder
from ember.relax.expr import Expr, Var
from ember.relax.struct_info import TensorStructInfo
from ember.relax.expr import ShapeExpr
from ember.relax.testing.nn_checkpoint import checkpoint, emit_checkpoint, emit_checkpoint_sequential  # noqa: F401

__all__ = ["Placeholder", "Parameter", "Module", "Sequential", "ReLU", "LogSoftmax", "Linear",
           "emit", "emit_te", "init_params", "checkpoint", "emit_checkpoint", "emit_checkpoint_sequential"]


def _tensor_var(shape, dtype: str, name: str) -> Var:
    if not isinstance(shape, list | tuple):
        raise TypeError(f"{name}: shape must be a list or tuple, got {type(shape).__name__}")
    return Var(name, TensorStructInfo(ShapeExpr(list(shape)), dtype))


def Placeholder(shape, dtype: str = "float32", name: str = "data") -> Var:  # noqa: N802 - TVM's name
    """An input of the function being built."""
    return _tensor_var(shape, dtype, name)


def Parameter(shape, dtype: str = "float32", name: str = "param") -> Var:  # noqa: N802 - TVM's name
    """A weight of a ``Module`` (store it as an attribute; ``parameters()`` finds it)."""
    return _tensor_var(shape, dtype, name)


def _builder() -> BlockBuilder:
    bb = BlockBuilder.current()
    if bb is None:
        raise RuntimeError("relax.testing.nn: emit needs an active BlockBuilder (inside `with bb.function(...)`)")
    return bb


def emit(expr: Expr, name_hint: str = "") -> Var:
    """Bind ``expr`` in the current BlockBuilder."""
    return _builder().emit(expr, name_hint=name_hint)


def emit_te(func, *args: Any, **kwargs: Any) -> Var:
    """``bb.emit_te`` on the current BlockBuilder."""
    return _builder().emit_te(func, *args, **kwargs)


def _collect(value: Any, found: list) -> None:
    if isinstance(value, Var):
        if not any(value is v for v in found):
            found.append(value)
    elif isinstance(value, Module):
        for attr in vars(value).values():
            _collect(attr, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _collect(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            _collect(item, found)


class Module:
    """Subclass and define ``forward``; calling the module calls it."""

    define_subroutine: bool = False

    def parameters(self) -> list[Var]:
        """The Vars held by this module and its sub-modules (attribute order, no repeats)."""
        found: list[Var] = []
        _collect(self, found)
        return found

    def forward(self, *args: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.define_subroutine:
            raise NotImplementedError(
                "relax.testing.nn: Module.define_subroutine is not supported by ember; "
                "leave it False (the layers are emitted inline)"
            )
        return self.forward(*args, **kwargs)


class Sequential(Module):
    """Runs its modules one after another."""

    def __init__(self, *modules: Module):
        self.modules = list(modules)

    def forward(self, value: Expr) -> Expr:
        for module in self.modules:
            value = module(value)
        return value


class ReLU(Module):
    def forward(self, value: Expr) -> Var:
        return emit_te(topi.nn.relu, value)


class LogSoftmax(Module):
    def forward(self, value: Expr) -> Var:
        return emit_te(topi.nn.log_softmax, value)


class Linear(Module):
    """``y = x @ weight (+ bias)`` with ``weight`` of shape ``(in_features, out_features)``."""

    def __init__(self, in_features: int, out_features: int, dtype: str = "float32", bias: bool = True):
        self.weight = Parameter((in_features, out_features), dtype, name="linear_weight")
        self.bias = Parameter((out_features,), dtype, name="linear_bias") if bias else None

    def forward(self, value: Expr) -> Var:
        out = emit_te(topi.matmul, value, self.weight)
        if self.bias is not None:
            out = emit_te(topi.add, out, self.bias)
        return out


def init_params(mod) -> list:
    """Random NDArrays (uniform in [-1, 1)) for the parameters of ``mod["main"]`` after its
    inputs: every parameter whose name is not one of the leading inputs (``num_input`` attr,
    else 1).  Shapes must be static."""
    from ember.runtime import array

    func = mod["main"]
    num_input = int((func.attrs or {}).get("num_input", 1))
    rng = np.random.default_rng(0)
    params = []
    for var in func.params[num_input:]:
        sinfo = var.struct_info
        shape = [int(d) for d in sinfo.shape.values]
        params.append(array(rng.uniform(-1, 1, shape).astype(sinfo.dtype)))
    return params
