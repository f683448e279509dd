"""``relax.frontend``: ways into Relax — the PyTorch-like ``nn`` model API (``nn``), and
room for the model importers (``onnx``, ``torch``), each loaded on first use; plus
``detach_params`` shared by them."""

from __future__ import annotations

import importlib

from .common import detach_params

_SUBMODULES = ("nn", "onnx", "torch")


def __getattr__(name: str):
    if name in _SUBMODULES:
        module = importlib.import_module(f"ember.relax.frontend.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'ember.relax.frontend' has no attribute {name!r}")


__all__ = ["detach_params", *_SUBMODULES]
