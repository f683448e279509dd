"""The leaves of scalar expressions: constants (IntImm, FloatImm, StringImm) and
variables (Var, SizeVar), with ``PointerType``, the type annotation of a handle Var."""

from __future__ import annotations

from ember.error import NodeFieldTypeError
from ember.runtime.dtype import DataType

from .node import Node, node
from .prim_expr import HANDLE, INT32, DataTypeError, PrimExpr

__all__ = ["IntImm", "FloatImm", "StringImm", "PointerType", "Var", "SizeVar"]


@node
class IntImm(PrimExpr):
    dtype: DataType
    value: int

    def __post_init__(self):  # IntImm("bool", True) and IntImm("int32", 3), as in TVM
        if not isinstance(self.dtype, DataType):
            object.__setattr__(self, "dtype", DataType(self.dtype))
        if type(self.value) is not int:
            object.__setattr__(self, "value", int(self.value))

    def __int__(self):
        return int(self.value)

    def __index__(self):
        return int(self.value)

    def __bool__(self):
        return bool(self.value)

    def __float__(self):
        return float(self.value)


@node
class FloatImm(PrimExpr):
    dtype: DataType
    value: float

    def __post_init__(self):
        if not isinstance(self.dtype, DataType):
            object.__setattr__(self, "dtype", DataType(self.dtype))
        if not self.dtype.is_float:
            raise DataTypeError(f"FloatImm needs a float dtype, got {self.dtype} (value {self.value!r})")

    def __float__(self):
        return float(self.value)


@node
class StringImm(PrimExpr):
    value: str

    def __eq__(self, other):  # compares with Python strings (and other StringImms) by text, as TVM
        if isinstance(other, StringImm):
            return self.value == other.value
        if isinstance(other, str) or other is None:
            return self.value == other
        return super().__eq__(other)

    def __ne__(self, other):
        if isinstance(other, StringImm | str) or other is None:
            return not self == other
        return super().__ne__(other)

    __hash__ = PrimExpr.__hash__

    @property
    def dtype(self) -> DataType:
        return HANDLE


@node
class PointerType(Node):
    """Type annotation of a handle Var that points at ``element_dtype`` data in ``storage_scope``."""

    element_dtype: DataType
    storage_scope: str = "global"

    def __post_init__(self):  # PointerType(PrimType("float32"), scope), as TVM spells it
        dtype = self.element_dtype
        if not isinstance(dtype, str | DataType) and hasattr(dtype, "dtype"):  # a PrimType
            dtype = dtype.dtype
        if not isinstance(dtype, DataType):
            dtype = DataType(dtype)
        object.__setattr__(self, "element_dtype", dtype)
        if not self.storage_scope:
            object.__setattr__(self, "storage_scope", "global")

    @property
    def element_type(self):
        """TVM's view: the pointee as a ``PrimType``."""
        from .type import PrimType

        return PrimType(self.element_dtype)


@node
class Var(PrimExpr):
    """A symbolic scalar; identity matters (two Vars named ``n`` are different)."""

    name: str
    dtype: DataType = INT32
    type_annotation: PointerType | None = None

    _binding = True
    _ignore_fields = ("name",)

    def __init__(self, name: str = "v", dtype=INT32, type_annotation: PointerType | None = None):
        if isinstance(dtype, PointerType):  # Var("p", PointerType(PrimType("float32"))), as TVM
            dtype, type_annotation = HANDLE, dtype
        elif not isinstance(dtype, str | DataType) and hasattr(dtype, "dtype"):  # a PrimType
            dtype = dtype.dtype
        if not isinstance(name, str):
            raise NodeFieldTypeError(f"Var: name must be a str, got {type(name).__name__} {name!r}")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "dtype", DataType(dtype))
        object.__setattr__(self, "type_annotation", type_annotation)

    @property
    def name_hint(self) -> str:
        return self.name


class SizeVar(Var):
    """A Var known to be non-negative (a shape dimension)."""

    __slots__ = ()
