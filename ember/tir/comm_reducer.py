"""Commutative reductions as TIR nodes (``tvm.tir.CommReducer`` / ``tvm.tir.Reduce``).

A ``CommReducer`` is ``result = combine(lhs, rhs)`` over tuples of Vars with an identity
element per tuple slot; tuple reducers (argmax-style) have several slots and one ``Reduce``
expression per slot, sharing combiner, source, axes and condition. ``te`` builds them
(``te.sum``, ``te.comm_reducer``); ``te.create_prim_func`` lowers them to blocks.
"""

from __future__ import annotations

from ember.ir import DataType, Node, PrimExpr, node

from .functor import substitute

__all__ = ["CommReducer", "Reduce"]


@node
class CommReducer(Node):
    """``combine(lhs, rhs) = result`` with ``identity_element``; all fields are tuples."""

    lhs: tuple
    rhs: tuple
    result: tuple
    identity_element: tuple

    def __call__(self, a, b) -> tuple:
        """The combined values of the tuples ``a`` (accumulator) and ``b`` (new value)."""
        vmap = dict(zip(self.lhs, a))
        vmap.update(zip(self.rhs, b))
        return tuple(substitute(r, vmap) for r in self.result)


@node
class Reduce(PrimExpr):
    """Slot ``value_index`` of reducing ``source`` over ``axis`` where ``condition`` holds."""

    combiner: CommReducer
    source: tuple
    axis: tuple
    condition: PrimExpr
    value_index: int
    init: tuple = ()

    def __post_init__(self):  # lists, as TVM's constructor takes them
        for name in ("source", "axis", "init"):
            value = getattr(self, name)
            if isinstance(value, list) or value is None:
                object.__setattr__(self, name, tuple(value or ()))

    @property
    def dtype(self) -> DataType:
        return self.source[self.value_index].dtype
