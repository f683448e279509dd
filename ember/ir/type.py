"""Types of IR values as TVM names them: ``PrimType(dtype)`` (a scalar or vector of ``dtype``).

ember keeps a ``DataType`` on every PrimExpr; ``PrimType`` is TVM's wrapper object for the
places where TVM's API takes a type (``PointerType(PrimType("float32"))``, ``Var(name, type)``).
``PointerType`` itself lives with the expressions (``ember.ir.expr``).
"""

from __future__ import annotations

from ember.runtime.dtype import DataType

from .node import Node, node

__all__ = ["PrimType", "TupleType", "Type"]


class Type(Node):
    """Base of type objects."""

    __slots__ = ()


@node
class PrimType(Type):
    """The type of a primitive value of ``dtype``."""

    dtype: DataType

    def __post_init__(self):
        if not isinstance(self.dtype, DataType):
            object.__setattr__(self, "dtype", DataType(self.dtype))

    def __eq__(self, other):  # a value: equal when the dtypes are
        return isinstance(other, PrimType) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("PrimType", str(self.dtype)))

    def __repr__(self) -> str:
        return f'T.{self.dtype}' if self.dtype.lanes == 1 else f'PrimType("{self.dtype}")'


@node
class TupleType(Type):
    """The type of a tuple of values (``TupleType([PrimType("float32"), PrimType("int32")])``)."""

    fields: tuple = ()

    def __post_init__(self):
        if not isinstance(self.fields, tuple):
            object.__setattr__(self, "fields", tuple(self.fields))

    def __eq__(self, other):  # a value: equal when the field types are
        return isinstance(other, TupleType) and self.fields == other.fields

    def __hash__(self):
        return hash(("TupleType", self.fields))
