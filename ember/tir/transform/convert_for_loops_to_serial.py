"""ConvertForLoopsToSerial: every ``parallel`` loop becomes a ``serial`` one.

Used where the code must run on one thread (TVM's micro and AOT flows); the loop's
range, body and annotations are kept.
"""

from __future__ import annotations

from ember.ir import replace
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator
from ..stmt import For, ForKind
from ._common import make_pass

__all__ = ["convert_for_loops_to_serial", "ConvertForLoopsToSerial"]


class _Serializer(IRMutator):
    def visit_For(self, loop: For):
        loop = self.generic_visit(loop)
        return replace(loop, kind=ForKind.SERIAL) if loop.kind == ForKind.PARALLEL else loop


def convert_for_loops_to_serial(func: PrimFunc) -> PrimFunc:
    """``func`` with its parallel loops made serial."""
    body = _Serializer().visit(func.body)
    return func if body is func.body else func.with_body(body)


def ConvertForLoopsToSerial() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`convert_for_loops_to_serial`."""
    return make_pass(convert_for_loops_to_serial, "tir.ConvertForLoopsToSerial")
