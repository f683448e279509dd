"""The table of ONNX converters: ``(domain, op_type)`` → converters by opset.

A converter is registered for the opset version it starts to serve; the importer picks,
for a node, the converter with the highest ``since`` not above the model's opset for
that domain (an op whose semantics did not change keeps serving later opsets).

Converter signature::

    @converter("Relu", since=6)
    def relu(ctx, node, inputs, attrs):
        return relax.op.nn.relu(inputs[0])

- ``ctx``: the importer's ``ConvertContext`` (``ctx.bb`` the BlockBuilder, ``ctx.opset``
  the opset of the node's domain, ``ctx.const_value(expr)`` the numpy value of an input
  known at import time or ``None``, ``ctx.emit(expr)``, ``ctx.elem_type(name)`` /
  ``ctx.declared_shape(name)`` the ONNX element type / static shape the model declares
  or shape inference finds, ``ctx.input_lowbit(i)`` the low-bit type (see ``lowbit``) of
  input ``i`` held as storage, and helpers for subgraphs);
- ``node``: the ``onnx.NodeProto``;
- ``inputs``: one Relax expression per node input, ``None`` for an omitted optional input;
- ``attrs``: the node's attributes decoded to Python values (ints, floats, strings as
  ``str``, lists, tensors as numpy arrays, graphs as ``GraphProto``).

It returns one Relax expression, or a list/tuple with one entry per node output.

Converter families live one per file in this package; ``FAMILY_MODULES`` lists them and
``load_converters()`` imports them all once.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

__all__ = ["CONVERTERS", "FAMILY_MODULES", "converter", "find_converter", "load_converters"]

Converter = Callable[..., object]

#: (domain, op_type) -> [(since_version, converter)], sorted by since_version
CONVERTERS: dict[tuple[str, str], list[tuple[int, Converter]]] = {}

#: modules under ember.relax.frontend.onnx that register converters
FAMILY_MODULES: list[str] = [
    "ops_elementwise", "ops_linalg", "ops_tensor", "ops_reduce", "ops_activation", "ops_nn", "ops_norm",
    "ops_tensor_create",
    "quantize", "sorting", "indexing", "resize", "einsum", "detection", "random", "attention",
    "contrib_microsoft",
    "control_flow", "sequence", "recurrent", "misc_ops", "signal", "grid_sample", "training", "affine_grid", "tfidf", "ml_ops", "image_ops", "mel",
]

_loaded = False


def converter(op_type: str, since: int = 1, domain: str = ""):
    """Register the decorated function as the converter of ``op_type`` from opset ``since``."""
    domain = "" if domain in ("", "ai.onnx") else domain

    def register(fn: Converter) -> Converter:
        entries = CONVERTERS.setdefault((domain, op_type), [])
        entries[:] = [e for e in entries if e[0] != since] + [(since, fn)]
        entries.sort(key=lambda e: e[0])
        return fn

    return register


def find_converter(domain: str, op_type: str, opset: int) -> Converter | None:
    """The converter serving ``op_type`` at ``opset``, or ``None``."""
    load_converters()
    domain = "" if domain in ("", "ai.onnx") else domain
    best = None
    for since, fn in CONVERTERS.get((domain, op_type), ()):
        if since <= opset:
            best = fn
    return best


def load_converters() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name in FAMILY_MODULES:
        importlib.import_module(f"ember.relax.frontend.onnx.{name}")
