"""The frame-based IR builder under TVMScript (``tvm.script.ir_builder``).

``with IRBuilder() as ib:`` opens a builder; the dialect words of ``ir_builder.tir``
and ``ir_builder.ir`` open frames and add statements; ``ib.get()`` returns what was
built.  It builds the same IR as the TVMScript parser, from Python calls instead of
source text.
"""

from __future__ import annotations

import importlib

from .base import IRBuilder, IRBuilderFrame

__all__ = ["IRBuilder", "IRBuilderFrame", "tir", "ir", "relax"]


def __getattr__(name: str):
    if name in ("tir", "ir", "base", "relax"):
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'ember.script.ir_builder' has no attribute {name!r}")
