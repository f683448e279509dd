"""Normalize: put every Relax function in A-normal form with struct info everywhere.

Nested calls become bindings of their own (DataflowVars inside dataflow blocks), a body
that is not a SeqExpr is wrapped in one, and missing struct info is inferred.
"""

from __future__ import annotations

from ember.transform import Pass

from ..block_builder import BlockBuilder
from .pass_wrappers import relax_module_pass

__all__ = ["Normalize"]


def Normalize() -> Pass:  # noqa: N802 - TVM's name
    return relax_module_pass(lambda func, mod: BlockBuilder(mod).normalize(func), "Normalize", 1)
