"""StructInfo: what Relax knows statically about a value (kind, shape, dtype).

``ObjectStructInfo`` (anything), ``PrimStructInfo`` (a scalar of a dtype, maybe a known
value), ``ShapeStructInfo`` (a shape: its values or only its ndim),
``TensorStructInfo`` (a tensor: shape — a ShapeExpr of PrimExprs, possibly symbolic
``tir.Var``s — or only ndim, dtype, vdevice), ``TupleStructInfo`` and
``FuncStructInfo``.  Unknown dtype is ``None`` (TVM's "void"); unknown ndim is -1.

Helpers: ``is_base_of`` (is every value described by ``derived`` also described by
``base``?), ``struct_info_lca`` (the most precise info describing both), and
``get_static_type``.
"""

from __future__ import annotations

from ember.ir import DataType, Node, PrimExpr, node

from ._arith import as_int, int64, prove_equal

__all__ = [
    "StructInfo", "ObjectStructInfo", "PrimStructInfo", "ShapeStructInfo", "TensorStructInfo",
    "TupleStructInfo", "FuncStructInfo", "is_base_of", "struct_info_lca", "get_static_type",
    "shape_values", "as_struct_info",
]


class StructInfo(Node):
    """Base of struct infos."""

    __slots__ = ()

    def is_base_of(self, derived: StructInfo) -> bool:
        return is_base_of(self, derived)

    def same_as(self, other) -> bool:
        return self is other


def _dtype_or_none(dtype) -> DataType | None:
    if dtype is None or dtype == "" or (isinstance(dtype, str) and dtype == "void"):
        return None
    return DataType(dtype)


@node
class ObjectStructInfo(StructInfo):
    """Any value; nothing is known."""


@node
class PrimStructInfo(StructInfo):
    """A scalar of ``dtype``; ``value`` is a PrimExpr when the value itself is known."""

    dtype: DataType | None = None
    value: PrimExpr | None = None

    def __init__(self, dtype=None, value=None):
        if value is not None and not isinstance(value, PrimExpr):
            from ember.ir import as_expr

            value = as_expr(value, dtype)
        if dtype is None and value is not None:
            dtype = value.dtype
        object.__setattr__(self, "dtype", _dtype_or_none(dtype))
        object.__setattr__(self, "value", value)


@node
class ShapeStructInfo(StructInfo):
    """A shape: ``values`` (tuple of PrimExprs) when known, else only ``ndim`` (-1: unknown)."""

    values: tuple | None = None
    ndim: int = -1

    def __init__(self, values=None, ndim: int = -1):
        if values is not None:
            values = tuple(int64(v) for v in values)
            if ndim not in (-1, len(values)):
                raise ValueError(f"ShapeStructInfo: ndim={ndim} but {len(values)} values given")
            ndim = len(values)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "ndim", int(ndim))


@node
class TensorStructInfo(StructInfo):
    """A tensor: ``shape`` (a Relax ShapeExpr or shape-typed Var) or just ``ndim``; ``dtype``."""

    shape: Node | None = None
    dtype: DataType | None = None
    vdevice: object = None
    ndim: int = -1

    def __init__(self, shape=None, dtype="float32", vdevice=None, ndim: int = -1):
        from .expr import Expr, ShapeExpr

        if shape is not None and not isinstance(shape, Expr):
            if not isinstance(shape, list | tuple):
                raise TypeError(
                    f"TensorStructInfo: shape must be a list/tuple of dims or a ShapeExpr, "
                    f"got {type(shape).__name__}: {shape!r}"
                )
            shape = ShapeExpr(shape)
        if shape is not None:
            sndim = _shape_ndim(shape)
            if ndim not in (-1, sndim) and sndim != -1:
                raise ValueError(f"TensorStructInfo: ndim={ndim} but the shape has {sndim} dims")
            ndim = sndim
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "dtype", _dtype_or_none(dtype))
        object.__setattr__(self, "vdevice", vdevice)
        object.__setattr__(self, "ndim", int(ndim))

    @property
    def is_unknown_ndim(self) -> bool:
        return self.ndim == -1

    @property
    def is_unknown_dtype(self) -> bool:
        return self.dtype is None


def _shape_ndim(shape) -> int:
    from .expr import ShapeExpr

    if isinstance(shape, ShapeExpr):
        return len(shape.values)
    sinfo = shape.struct_info_or_none()
    if isinstance(sinfo, ShapeStructInfo):
        return sinfo.ndim
    return -1


@node
class TupleStructInfo(StructInfo):
    fields: tuple

    def __init__(self, fields):
        object.__setattr__(self, "fields", tuple(fields))


@node
class FuncStructInfo(StructInfo):
    """A function: ``params`` (None for an opaque function), ``ret`` and ``purity``."""

    params: tuple | None
    ret: StructInfo
    purity: bool = True
    derive_func: object = None

    def __init__(self, params, ret, purity: bool = True, derive_func=None):
        object.__setattr__(self, "params", None if params is None else tuple(params))
        object.__setattr__(self, "ret", ret)
        object.__setattr__(self, "purity", bool(purity))
        object.__setattr__(self, "derive_func", derive_func)

    @staticmethod
    def opaque_func(ret: StructInfo | None = None, derive_func=None, purity: bool = False) -> FuncStructInfo:
        return FuncStructInfo(None, ret if ret is not None else ObjectStructInfo(), purity, derive_func)

    def is_opaque(self) -> bool:
        return self.params is None


def shape_values(sinfo) -> tuple | None:
    """The dims of a TensorStructInfo / ShapeStructInfo when they are known, else None."""
    from .expr import ShapeExpr

    if isinstance(sinfo, ShapeStructInfo):
        return sinfo.values
    if not isinstance(sinfo, TensorStructInfo) or sinfo.shape is None:
        return None
    if isinstance(sinfo.shape, ShapeExpr):
        return sinfo.shape.values
    inner = sinfo.shape.struct_info_or_none()
    return inner.values if isinstance(inner, ShapeStructInfo) else None


def as_struct_info(x) -> StructInfo:
    """Accept a StructInfo, or a Relax Expr (its struct_info)."""
    if isinstance(x, StructInfo):
        return x
    sinfo = getattr(x, "struct_info", None)
    if isinstance(sinfo, StructInfo):
        return sinfo
    raise TypeError(f"expected a StructInfo, got {type(x).__name__}: {x!r}")


# -- is_base_of ---------------------------------------------------------------------

def _values_base(base: tuple | None, derived: tuple | None) -> bool:
    if base is None:
        return True
    if derived is None or len(base) != len(derived):
        return False
    return all(prove_equal(a, b) for a, b in zip(base, derived))


def _dtype_base(base, derived) -> bool:
    return base is None or base == derived


def is_base_of(base: StructInfo, derived: StructInfo) -> bool:
    """True when every value described by ``derived`` is also described by ``base``."""
    if isinstance(base, ObjectStructInfo):
        return True
    if type(base) is not type(derived):
        return False
    if isinstance(base, PrimStructInfo):
        if not _dtype_base(base.dtype, derived.dtype):
            return False
        return base.value is None or (derived.value is not None and prove_equal(base.value, derived.value))
    if isinstance(base, ShapeStructInfo):
        if base.ndim != -1 and base.ndim != derived.ndim:
            return False
        return _values_base(base.values, derived.values)
    if isinstance(base, TensorStructInfo):
        if not _dtype_base(base.dtype, derived.dtype):
            return False
        if base.ndim != -1 and base.ndim != derived.ndim:
            return False
        if base.vdevice is not None and base.vdevice != derived.vdevice:
            return False
        return _values_base(shape_values(base), shape_values(derived)) or base.shape is None
    if isinstance(base, TupleStructInfo):
        return len(base.fields) == len(derived.fields) and all(
            is_base_of(a, b) for a, b in zip(base.fields, derived.fields)
        )
    if isinstance(base, FuncStructInfo):
        if base.purity and not derived.purity:
            return False
        if base.params is None:
            return is_base_of(base.ret, derived.ret)
        if derived.params is None or len(base.params) != len(derived.params):
            return False
        # parameters are contravariant
        return all(is_base_of(d, b) for b, d in zip(base.params, derived.params)) and is_base_of(
            base.ret, derived.ret
        )
    return False


# -- least common ancestor -----------------------------------------------------------

def struct_info_lca(a: StructInfo, b: StructInfo) -> StructInfo:
    """The most precise StructInfo that is a base of both ``a`` and ``b``."""
    if is_base_of(a, b):
        return a
    if is_base_of(b, a):
        return b
    if type(a) is not type(b):
        return ObjectStructInfo()
    if isinstance(a, PrimStructInfo):
        if a.dtype != b.dtype:  # a Prim of unknown dtype is not a thing: widen to Object
            return ObjectStructInfo()
        same_value = a.value is not None and b.value is not None and (
            a.value is b.value or prove_equal(a.value, b.value))
        return PrimStructInfo(a.dtype, a.value if same_value else None)
    if isinstance(a, ShapeStructInfo):
        return ShapeStructInfo(ndim=a.ndim if a.ndim == b.ndim else -1)
    if isinstance(a, TensorStructInfo):
        dtype = a.dtype if a.dtype == b.dtype else None
        ndim = a.ndim if a.ndim == b.ndim else -1
        va, vb = shape_values(a), shape_values(b)
        if va is not None and vb is not None and len(va) == len(vb) and all(
            prove_equal(x, y) for x, y in zip(va, vb)
        ):
            return TensorStructInfo(a.shape, dtype, a.vdevice if a.vdevice == b.vdevice else None)
        return TensorStructInfo(None, dtype, None, ndim)
    if isinstance(a, TupleStructInfo):
        if len(a.fields) != len(b.fields):
            return ObjectStructInfo()
        return TupleStructInfo([struct_info_lca(x, y) for x, y in zip(a.fields, b.fields)])
    if isinstance(a, FuncStructInfo):
        from ember.ir import structural_equal

        if structural_equal(a, b, map_free_vars=True):  # the same signature over its own symbolic vars
            return a
        ret, purity = struct_info_lca(a.ret, b.ret), a.purity and b.purity
        if a.params is None or b.params is None or len(a.params) != len(b.params):
            return FuncStructInfo.opaque_func(ret, purity=purity)
        return FuncStructInfo([struct_info_lca(x, y) for x, y in zip(a.params, b.params)], ret, purity)
    return ObjectStructInfo()


# -- static types -----------------------------------------------------------------

@node
class ObjectType(Node):
    pass


@node
class PrimType(Node):
    dtype: DataType | None


@node
class ShapeType(Node):
    ndim: int = -1


@node
class TensorType(Node):
    ndim: int = -1
    dtype: DataType | None = None


DynTensorType = TensorType


@node
class TupleType(Node):
    fields: tuple


@node
class FuncType(Node):
    arg_types: tuple | None
    ret_type: Node


def get_static_type(sinfo: StructInfo) -> Node:
    """The coarse static type (kind, ndim, dtype) of a StructInfo."""
    if isinstance(sinfo, PrimStructInfo):
        if sinfo.dtype is None:
            return PrimType(None)
        from ember.ir.type import PrimType as IrPrimType  # TVM's tvm.ir.PrimType

        return IrPrimType(sinfo.dtype)
    if isinstance(sinfo, ShapeStructInfo):
        return ShapeType(sinfo.ndim)
    if isinstance(sinfo, TensorStructInfo):
        return TensorType(sinfo.ndim, sinfo.dtype)
    if isinstance(sinfo, TupleStructInfo):
        return TupleType(tuple(get_static_type(f) for f in sinfo.fields))
    if isinstance(sinfo, FuncStructInfo):
        params = None if sinfo.params is None else tuple(get_static_type(p) for p in sinfo.params)
        return FuncType(params, get_static_type(sinfo.ret))
    return ObjectType()


def static_dims(sinfo) -> tuple | None:
    """The dims as Python ints when all of them are constants, else None."""
    values = shape_values(sinfo)
    if values is None:
        return None
    ints = tuple(as_int(v) for v in values)
    return None if any(i is None for i in ints) else ints
