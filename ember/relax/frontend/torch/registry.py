"""The table of PyTorch converters: an ATen overload name → a function that builds Relax.

Keys are the overload's printed name (``"aten.conv2d.default"``) or, for Python
operators that appear in graphs on symbolic sizes and tuples, ``"_operator.getitem"``.
A converter receives the import context then the node's arguments *in schema order with
defaults filled in* (fx nodes already replaced by their Relax values)::

    @converter("aten.relu.default", "aten.relu_.default")
    def relu(ctx, x):
        return relax.op.nn.relu(x)

and returns one Relax expression, a PrimExpr (symbolic sizes), or a list/tuple with one
entry per output (``None`` for an output it does not compute).  Converter families live
one per file; ``FAMILY_MODULES`` lists them and ``load_converters()`` imports them once.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

__all__ = ["CONVERTERS", "FAMILY_MODULES", "converter", "target_key", "load_converters", "lookup"]

Converter = Callable[..., object]

#: "aten.<op>.<overload>" (or "_operator.<fn>") -> converter
CONVERTERS: dict[str, Converter] = {}

FAMILY_MODULES = (
    "ops_math", "ops_activation", "ops_reduce", "ops_shape", "ops_index", "ops_create",
    "ops_nn", "ops_conv_pool", "ops_sym",
)

_loaded = False


def converter(*names: str):
    """Register the decorated function for each overload name (``"aten.add.Tensor"``)."""

    def register(fn: Converter) -> Converter:
        for name in names:
            CONVERTERS[name] = fn
        return fn

    return register


def target_key(target) -> str:
    """The table key of an fx node target: ``aten.add.Tensor`` or ``_operator.getitem``."""
    import torch

    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    if isinstance(target, torch._ops.OpOverloadPacket):
        return str(target) + ".default"
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", None) or str(target)
    return f"{module}.{name}" if module else name


def load_converters() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name in FAMILY_MODULES:
        importlib.import_module(f"ember.relax.frontend.torch.{name}")


def lookup(key: str, custom: dict | None = None) -> Converter | None:
    """The converter for ``key``; entries of ``custom`` (user's map) win."""
    load_converters()
    if custom and key in custom:
        return custom[key]
    return CONVERTERS.get(key)
