"""``ProducerLoad``: a read of ``producer[indices]`` where the producer is not a buffer but a
tensor of a higher-level description (a te ``Tensor``); lowering turns it into a BufferLoad.

It is a TIR expression node (``tvm.tir.expr.ProducerLoad`` in TVM) so that TIR-level code
can name it; ``te`` builds it when a tensor is indexed.
"""

from __future__ import annotations

from ember.ir import DataType, PrimExpr, node

__all__ = ["ProducerLoad"]


@node
class ProducerLoad(PrimExpr):
    """A read of ``producer[indices]`` (the producer has a ``dtype``)."""

    producer: object
    indices: tuple

    def __post_init__(self):
        if not isinstance(self.indices, tuple):
            from ember.ir import as_expr

            object.__setattr__(self, "indices", tuple(as_expr(i) for i in self.indices))

    @property
    def dtype(self) -> DataType:
        return self.producer.dtype
