"""RemoveStoreUndef: delete stores of ``T.undef()`` values.

``T.undef()`` marks a value nobody may rely on (a store that only exists to describe
a buffer's contents to the simplifier).  A ``BufferStore`` whose value contains it —
directly or through a ``LetStmt`` variable bound to such a value — is removed, as is
that ``LetStmt``.  An ``undef`` left anywhere else (an index, an ``if`` condition) is
an error: there is nothing meaningful to compute.
"""

from __future__ import annotations

from ember.ir import Var
from ember.transform import Pass

from ..function import PrimFunc
from ..buffer import BufferLoad
from ..functor import IRMutator, collect
from ..stmt import BufferStore, LetStmt
from ._common import TransformError, call_op_name, make_pass, no_op
from .remove_no_op import remove_no_op

__all__ = ["remove_store_undef", "RemoveStoreUndef"]


def _is_undef(x) -> bool:
    return call_op_name(x) == "tir.undef"


class _UndefStoreRemover(IRMutator):
    def __init__(self):
        super().__init__()
        self.undef_vars: set[Var] = set()

    def _is_undef_value(self, x) -> bool:
        return _is_undef(x) or (isinstance(x, Var) and x in self.undef_vars)

    def _contains_undef(self, expr) -> bool:
        return bool(collect(expr, self._is_undef_value))

    def _check_indices(self, value) -> None:
        for load in collect(value, lambda x: isinstance(x, BufferLoad)):
            if any(self._contains_undef(i) for i in load.indices):
                raise TransformError(
                    f"RemoveStoreUndef: T.undef() used as an index of buffer {load.buffer.name!r}")

    def visit_LetStmt(self, let: LetStmt):
        if self._contains_undef(let.value):
            self.undef_vars.add(let.var)
            return self.visit(let.body)
        return self.generic_visit(let)

    def visit_BufferStore(self, store: BufferStore):
        if self._contains_undef(store.value):
            self._check_indices(store.value)
            return no_op()
        return store


def remove_store_undef(func: PrimFunc) -> PrimFunc:
    """``func`` without stores of undefined values; raises if ``T.undef()`` remains elsewhere."""
    remover = _UndefStoreRemover()
    body = remover.visit(func.body)
    left = collect(body, lambda x: _is_undef(x) or (isinstance(x, Var) and x in remover.undef_vars))
    if left:
        raise TransformError(
            "RemoveStoreUndef: T.undef() may only be the value stored to a buffer, but it is "
            f"used elsewhere (e.g. as an index) in {left[0]!r}")
    if body is func.body:
        return func
    return remove_no_op(func.with_body(body))


def RemoveStoreUndef() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`remove_store_undef`."""
    return make_pass(remove_store_undef, "tir.RemoveStoreUndef")
