"""The other expression nodes: Cast, Select, the vectors (Ramp, Broadcast, Shuffle), Let,
Call (of an ``Op`` or a ``GlobalVar``), and ``Range``, a (min, extent) pair.  Constructors
accept TVM's plain Python arguments (numbers, dtype strings, op names) and convert them."""

from __future__ import annotations

from ember.runtime.dtype import DataType

from .expr_binary import PY_SCALARS, Mul
from .expr_leaves import IntImm, Var
from .node import Node, node
from .op import Op
from .prim_expr import INT32, DataTypeError, PrimExpr

__all__ = [
    "Cast", "Select", "Ramp", "Broadcast", "Shuffle", "Let", "Call", "Range",
    "vector_lanes", "scalable_lanes",
]


@node
class Cast(PrimExpr):
    dtype: DataType
    value: PrimExpr

    def __post_init__(self):  # Cast("float32", x) and Cast("int8", 3), as TVM accepts
        if not isinstance(self.dtype, DataType):
            object.__setattr__(self, "dtype", DataType(self.dtype))
        if isinstance(self.value, PY_SCALARS):
            object.__setattr__(self, "value", as_expr(self.value))


@node
class Select(PrimExpr):
    """``true_value if condition else false_value``, both sides evaluated."""

    condition: PrimExpr
    true_value: PrimExpr
    false_value: PrimExpr

    def __post_init__(self):  # Select(c, y, 0): a Python number takes the other branch's dtype
        t, f = self.true_value, self.false_value
        if isinstance(f, PY_SCALARS) and isinstance(t, PrimExpr):
            object.__setattr__(self, "false_value", as_expr(f, t.dtype))
        elif isinstance(t, PY_SCALARS) and isinstance(f, PrimExpr):
            object.__setattr__(self, "true_value", as_expr(t, f.dtype))
        elif isinstance(t, PY_SCALARS) and isinstance(f, PY_SCALARS):
            object.__setattr__(self, "true_value", as_expr(t))
            object.__setattr__(self, "false_value", as_expr(f))

    @property
    def dtype(self) -> DataType:
        return self.true_value.dtype


def vector_lanes(lanes):
    """A Ramp's or Broadcast's lane count: a Python int, or for a scalable vector the
    expression ``vscale() * k`` (``k * vscale()`` is put in that order); anything else
    (``vscale() + 3``, a bare ``vscale()``) is refused."""
    if isinstance(lanes, IntImm):
        return int(lanes.value)
    if not isinstance(lanes, PrimExpr):
        return lanes
    from ember.runtime.dtype import _vscale_factor

    try:
        factor = _vscale_factor(lanes)
    except ValueError:
        raise DataTypeError(f"vector lanes must be an int or vscale() * k, got {lanes!r}") from None
    return scalable_lanes(factor) if not isinstance(lanes.b, IntImm) else lanes


def scalable_lanes(factor: int) -> PrimExpr:
    """The lanes ``vscale() * factor`` of a scalable vector."""
    return Mul(Call(INT32, Op.get("tir.vscale"), ()), IntImm(INT32, int(factor)))


@node
class Ramp(PrimExpr):
    """The vector ``[base, base + stride, …]`` of ``lanes`` elements."""

    base: PrimExpr
    stride: PrimExpr
    lanes: int

    def __post_init__(self):  # Ramp(x, 1, 4) and Ramp(0, 1, 4): Python numbers become IntImms
        base, stride = self.base, self.stride
        if not isinstance(base, PrimExpr):
            base = as_expr(base, stride.dtype) if isinstance(stride, PrimExpr) else as_expr(base)
            object.__setattr__(self, "base", base)
        if not isinstance(stride, PrimExpr):
            object.__setattr__(self, "stride", as_expr(stride, base.dtype))
        object.__setattr__(self, "lanes", vector_lanes(self.lanes))

    @property
    def dtype(self) -> DataType:
        return self.base.dtype.with_lanes(self.lanes)


@node
class Broadcast(PrimExpr):
    value: PrimExpr
    lanes: int

    def __post_init__(self):  # Broadcast(0, 4): a Python number becomes an IntImm / FloatImm
        if not isinstance(self.value, PrimExpr):
            object.__setattr__(self, "value", as_expr(self.value))
        object.__setattr__(self, "lanes", vector_lanes(self.lanes))

    @property
    def dtype(self) -> DataType:
        return self.value.dtype.with_lanes(self.lanes)


@node
class Shuffle(PrimExpr):
    """The lanes ``indices`` picks from the concatenation of ``vectors`` (TVM's Shuffle)."""

    vectors: tuple
    indices: tuple

    def __post_init__(self):
        object.__setattr__(self, "vectors", tuple(as_expr(v) for v in self.vectors))
        object.__setattr__(self, "indices", tuple(as_expr(i) for i in self.indices))

    @property
    def dtype(self) -> DataType:
        return self.vectors[0].dtype.element_of().with_lanes(len(self.indices))


@node
class Let(PrimExpr):
    _def_fields = ("var",)  # structural equality: where the variable is defined

    var: Var
    value: PrimExpr
    body: PrimExpr

    def __post_init__(self):  # Let(x, 1, x + 1): a Python number takes the variable's dtype
        if isinstance(self.value, PY_SCALARS):
            object.__setattr__(self, "value", as_expr(self.value, self.var.dtype))
        elif self.value.dtype != self.var.dtype:  # as TVM: no implicit cast into a binding
            raise DataTypeError(f"Let: the value of {self.var.name} ({self.var.dtype}) has dtype "
                                f"{self.value.dtype}; cast it first")

    @property
    def dtype(self) -> DataType:
        return self.body.dtype


@node
class Call(PrimExpr):
    """A call of an intrinsic ``Op`` (or a ``GlobalVar``) returning ``dtype``."""

    dtype: DataType
    op: Node
    args: tuple

    def __post_init__(self):  # Call("float32", "tir.call_extern", [...]), as TVM's constructor takes
        if type(self.dtype) is not DataType:
            object.__setattr__(self, "dtype", DataType(self.dtype))
        if type(self.op) is str:
            object.__setattr__(self, "op", Op.get(self.op))
        if type(self.args) is not tuple:
            object.__setattr__(self, "args", tuple(self.args))


@node
class Range(Node):
    """The half-open interval ``[min, min + extent)``."""

    min: PrimExpr
    extent: PrimExpr

    def __init__(self, min=None, extent=None, *, begin=None, end=None, span=None):  # noqa: A002
        if begin is not None or end is not None:  # TVM's keywords: [begin, end)
            if min is not None or extent is not None:
                raise TypeError("Range: give either (min, extent) or begin=/end=, not both")
            if end is None:
                raise TypeError("Range: begin= needs end=")
            begin = 0 if begin is None else begin
            min, extent = begin, as_expr(end) - as_expr(begin) if not (
                isinstance(begin, int) and isinstance(end, int)) else end - begin
        if min is None:
            raise TypeError("Range: expected an extent, (min, extent), or begin=/end=")
        if extent is None:  # Range(n) is [0, n)
            min, extent = 0, min
        # a constant bound takes the other bound's int dtype (Range(0, n) with an int64 n is int64)
        min, extent = _range_bound(min, extent), _range_bound(extent, min)
        object.__setattr__(self, "min", as_expr(min))
        object.__setattr__(self, "extent", as_expr(extent))

    @staticmethod
    def from_min_extent(min, extent) -> Range:  # noqa: A002
        return Range(min, extent)


def _range_bound(bound, other):
    """A constant ``bound`` in ``other``'s int dtype (unless ``other`` is a narrower constant)."""
    if not isinstance(other, PrimExpr) or not other.dtype.is_integer:
        return bound
    if isinstance(bound, IntImm):
        if isinstance(other, IntImm) and other.dtype.bits <= bound.dtype.bits:
            return bound
        bound = bound.value
    if isinstance(bound, int) and not isinstance(bound, bool):
        return const(bound, other.dtype)
    return bound



from .expr_build import as_expr, const  # noqa: E402 - expr_build builds these nodes
