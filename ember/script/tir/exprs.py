"""Expression builders of TVMScript beyond ``ember.tir.op``: node constructors by name.

``T.Cast("float32", x)``, ``T.Select(c, a, b)``, ``T.Ramp(b, s, 4)``,
``T.Broadcast(v, 4)``, ``T.Let(body, where={x: v})``, ``T.Div(a, b)`` … build exactly
the node they name (no constant folding), so printed IR parses back to the same tree.
"""

from __future__ import annotations

from ember import ir
from ember.ir import Add, IntImm, PrimExpr, Range, as_expr, promote, structural_equal
from ember.runtime.dtype import DataType
from ember.tir import op as _op
from ember.tir.stmt import IterVar, IterVarType

__all__ = [
    "Cast", "Select", "Ramp", "Broadcast", "Let", "Range_", "iter_var", "call_intrin",
    "NODE_BUILDERS", "range_from_bounds", "meta_var", "call_extern", "call_pure_extern",
    "StringImm", "comm_reducer",
]


def Cast(dtype, value) -> PrimExpr:  # noqa: N802 - TVM's name
    """The Cast node converting ``value`` to ``dtype``."""
    return ir.Cast(DataType(dtype), as_expr(value))


def Select(condition, true_value, false_value) -> PrimExpr:  # noqa: N802
    t, f = promote(true_value, false_value)
    return ir.Select(as_expr(condition), t, f)


def Ramp(base, stride, lanes: int) -> PrimExpr:  # noqa: N802
    base, stride = promote(base, stride)
    return ir.Ramp(base, stride, int(lanes))


def Broadcast(value, lanes: int) -> PrimExpr:  # noqa: N802
    return ir.Broadcast(as_expr(value), int(lanes))


def Let(body, where: dict) -> PrimExpr:  # noqa: N802
    """``body`` with each ``var`` of ``where`` bound to its value (outermost first)."""
    if not isinstance(where, dict) or not where:
        raise TypeError(f"T.Let: 'where' must be a non-empty dict {{var: value}}, got {where!r}")
    out = as_expr(body)
    for v, value in reversed(list(where.items())):
        out = ir.Let(v, as_expr(value, v.dtype), out)
    return out


def range_from_bounds(begin, end) -> Range:
    """The range ``[begin, end)``; ``end - begin`` is simplified when ``end`` is ``begin + c``."""
    begin, end = as_expr(begin), as_expr(end)
    return Range(begin, extent_between(begin, end))


def extent_between(begin: PrimExpr, end: PrimExpr) -> PrimExpr:
    """``end - begin``, simplified as TVM's slicing does (``A[i - 1 : i + 2]`` has extent 3)."""
    if isinstance(end, Add) and structural_equal(end.a, begin, map_free_vars=False):
        return end.b
    if isinstance(begin, IntImm) and begin.value == 0 and begin.dtype is end.dtype:
        return end
    from ember.arith import Analyzer

    return Analyzer().simplify(end - begin)


def Range_(begin, end=None) -> Range:  # noqa: N802
    """``T.Range(begin, end)``: the half-open range; ``T.Range(n)`` is ``[0, n)``."""
    if end is None:
        return Range(0, begin)
    return range_from_bounds(begin, end)


def iter_var(v, dom, iter_type: str, thread_tag: str = "") -> IterVar:
    """An IterVar over ``dom`` (a Range, an extent or None) of kind ``iter_type``."""
    if dom is not None and not isinstance(dom, Range):
        dom = Range(0, dom)
    return IterVar(dom, v, IterVarType[iter_type], thread_tag)


def meta_var(value):
    """A Python value used as-is inside a script (TVM's meta-programming marker)."""
    return value


def _args(args) -> tuple:
    """Call arguments with Python strings as StringImm (format strings, names)."""
    return tuple(ir.StringImm(a) if isinstance(a, str) else a for a in args)


def call_intrin(dtype, name: str, *args) -> PrimExpr:
    return _op.call_intrin(dtype, name, *_args(args))


def call_extern(dtype, func_name: str, *args) -> PrimExpr:
    return _op.call_extern(dtype, func_name, *_args(args))


def call_pure_extern(dtype, func_name: str, *args) -> PrimExpr:
    return _op.call_pure_extern(dtype, func_name, *_args(args))


StringImm = ir.StringImm


def _node_builder(cls):
    def build(a, b) -> PrimExpr:
        x, y = promote(a, b)
        return cls(x, y)

    build.__name__ = cls.__name__
    build.__doc__ = f"The {cls.__name__} node of ``a`` and ``b`` (never folded)."
    return build


# T.Add, T.Div, T.Min … spelled like the node classes
NODE_BUILDERS = {
    cls.__name__: _node_builder(cls)
    for cls in (ir.Add, ir.Sub, ir.Mul, ir.Div, ir.Mod, ir.FloorDiv, ir.FloorMod, ir.Min, ir.Max,
                ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE, ir.And, ir.Or)
}


def comm_reducer(combiner, identity):
    """``T.comm_reducer(lambda x, y: x + y, [T.float32(0)])``: a commutative reducer whose
    combiner takes the accumulators then the new values (one per identity element)."""
    import inspect

    from ember.tir.comm_reducer import CommReducer

    identity = tuple(as_expr(v) for v in identity)
    names = list(inspect.signature(combiner).parameters)
    if len(names) != 2 * len(identity):
        raise TypeError(f"T.comm_reducer: the combiner takes {len(names)} arguments; "
                        f"{len(identity)} identity element(s) need {2 * len(identity)}")
    n = len(identity)
    lhs = tuple(ir.Var(name, v.dtype) for name, v in zip(names[:n], identity))
    rhs = tuple(ir.Var(name, v.dtype) for name, v in zip(names[n:], identity))
    result = combiner(*lhs, *rhs)
    result = tuple(result) if isinstance(result, list | tuple) else (result,)
    return CommReducer(lhs, rhs, tuple(as_expr(r) for r in result), identity)
