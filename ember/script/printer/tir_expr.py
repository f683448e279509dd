"""Printing TIR expressions as TVMScript, with Python precedence and minimal parentheses.

``ExprPrinter`` owns the naming state of one printed function: which Vars and Buffers
are defined so far, and the declarations (``n = T.int32()``, ``A = T.Buffer(...)``)
still to be emitted for free ones before the statement that first uses them.
Rendering is table-driven: one small method per node class.
"""

from __future__ import annotations

import json
import math

from ember.ir import (
    EQ, GE, GT, LE, LT, NE, Add, And, Broadcast, Call, Cast, Div, FloatImm, FloorDiv, FloorMod,
    GlobalVar, IntImm, Let, Max, Min, Mod, Mul, Node, Not, Op, Or, PrimExpr, Ramp, Range, Select,
    StringImm, Sub, Var, structural_equal,
)
from ember.ir.expr import PointerType, SizeVar
from ember.ir.intrinsics import BINARY_MATH, UNARY_MATH
from ember.runtime.dtype import DataType
from ember.tir.comm_reducer import CommReducer
from ember.tir.buffer import Buffer, BufferLoad, BufferRegion

from .names import Namer

__all__ = ["ExprPrinter", "PREC", "py_str", "range_stop", "bound_stop"]

# Python precedence levels (higher binds tighter)
PREC = {
    "or": 1, "and": 2, "not": 3, "cmp": 4, "|": 5, "^": 6, "&": 7, "shift": 8,
    "add": 9, "mul": 10, "unary": 11, "atom": 13,
}

# node class → (operator text, precedence level); comparisons are non-associative
_INFIX = {
    Add: ("+", PREC["add"]), Sub: ("-", PREC["add"]), Mul: ("*", PREC["mul"]),
    FloorDiv: ("//", PREC["mul"]), FloorMod: ("%", PREC["mul"]),
    EQ: ("==", PREC["cmp"]), NE: ("!=", PREC["cmp"]), LT: ("<", PREC["cmp"]),
    LE: ("<=", PREC["cmp"]), GT: (">", PREC["cmp"]), GE: (">=", PREC["cmp"]),
    And: ("and", PREC["and"]), Or: ("or", PREC["or"]),
}
# node class → T.<name>(a, b) spelling
_CALL_STYLE = {Min: "min", Max: "max", Mod: "truncmod"}

_BOOL_RESULT = {"isnan", "isinf", "isfinite"}
# intrinsic name → how T.<name>(*args) infers its dtype (index of the arg it copies)
_DTYPE_FROM_ARG = {name: 0 for name in UNARY_MATH + BINARY_MATH}
_DTYPE_FROM_ARG.update({"if_then_else": 1, "likely": 0})
# intrinsics whose builder takes the result dtype first: T.<name>("dtype", *args)
_DTYPE_FIRST = {"call_extern", "call_pure_extern", "call_llvm_intrin", "call_llvm_pure_intrin",
                "reinterpret"}


def range_stop(r: Range) -> PrimExpr:
    """``min + extent`` of a range, without a ``0 +`` when it starts at zero."""
    return bound_stop(r.min, r.extent)


def bound_stop(lo: PrimExpr, extent: PrimExpr) -> PrimExpr:
    """The end of ``[lo, lo + extent)``, undoing the ``stop - lo`` the parser builds."""
    if isinstance(lo, IntImm) and lo.value == 0 and lo.dtype is extent.dtype:
        return extent
    if isinstance(extent, Sub) and structural_equal(extent.b, lo, map_free_vars=False):
        return extent.a
    return lo + extent


def py_str(text: str) -> str:
    """A double-quoted Python string literal."""
    return json.dumps(text)


class ExprPrinter:
    """Expression rendering plus the per-function naming and declaration state."""

    def __init__(self, declare_free: bool = True, module_funcs: frozenset = frozenset(), marks=None,
                 show_address: bool = False):
        self.marks = marks  # marks.Marks: objects to underline or annotate, or None
        self.namer = Namer(show_address)
        self.defined: set[int] = set()
        self.pending: list[str] = []
        self.declare_free = declare_free
        self.module_funcs = module_funcs

    # -- naming and definitions ---------------------------------------------------------
    def define(self, obj, hint: str) -> str:
        """Name ``obj`` and mark it defined (it is bound by the construct being printed)."""
        name = self.namer.name(obj, hint)
        self.defined.add(id(obj))
        return name

    def var(self, v: Var) -> str:
        name = self.namer.get(v)
        if name is not None and id(v) in self.defined:
            return name
        name = self.define(v, v.name)
        if self.declare_free:
            self.pending.append(f"{name} = {self.var_decl(v)}")
        return name

    def var_decl(self, v: Var) -> str:
        """The expression that declares a fresh var like ``v``: ``T.int32()``, ``T.handle(...)``."""
        ann = v.type_annotation
        if v.dtype.is_handle and ann is not None:  # the scope always shows, as TVM declares it
            return f"T.handle({py_str(str(ann.element_dtype))}, {py_str(ann.storage_scope)})"
        if isinstance(v, SizeVar):
            return f"T.{v.dtype}(is_size_var=True)"
        return f"T.{v.dtype}()"

    def buffer(self, buf: Buffer) -> str:
        name = self.namer.get(buf)
        if name is not None and id(buf) in self.defined:
            return name
        if not self.declare_free:
            return self.define(buf, buf.name)
        decl = self.buffer_call("T.Buffer", buf, with_data=True)
        name = self.define(buf, buf.name)
        self.pending.append(f"{name} = {decl}")
        return name

    def bind_buffer_data(self, buf: Buffer, name: str) -> None:
        """A buffer defined as ``name`` also defines its data var as ``name.data``."""
        if id(buf.data) not in self.defined:
            self.namer.bind(buf.data, f"{name}.data")
            self.defined.add(id(buf.data))

    def buffer_call(self, head: str, buf: Buffer, with_data: bool = False,
                    dtype_always: bool = False, source: str | None = None) -> str:
        """``head(shape, dtype, ...)`` with only the non-default buffer fields spelled out."""
        args = [source] if source is not None else []
        args.append(self.shape(buf.shape))
        if dtype_always or str(buf.dtype) != "float32":
            args.append(py_str(str(buf.dtype)))
        if with_data and id(buf.data) in self.defined:
            args.append(f"data={self.var(buf.data)}")
        if buf.strides:
            args.append(f"strides={self.shape(buf.strides)}")
        if buf.elem_offset is not None:
            args.append(f"elem_offset={self.expr(buf.elem_offset)}")
        if buf.scope() != "global":
            args.append(f"scope={py_str(buf.scope())}")
        if buf.data_alignment != 64:
            args.append(f"align={buf.data_alignment}")
        if buf.offset_factor != 1:
            args.append(f"offset_factor={buf.offset_factor}")
        if buf.axis_separators:
            args.append(f"axis_separators={list(buf.axis_separators)}")
        return f"{head}({', '.join(args)})"

    def shape(self, dims) -> str:
        parts = [self.expr(d) for d in dims]
        return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"

    def take_pending(self) -> list[str]:
        lines, self.pending = self.pending, []
        return lines

    # -- expressions ------------------------------------------------------------------
    def expr(self, e, min_prec: int = 0) -> str:
        """Text of ``e``, parenthesised if it binds looser than ``min_prec``."""
        if not isinstance(e, Node):
            if isinstance(e, bool):  # a bool in an expression position is a T.bool constant
                return f"T.bool({e})"
            return self.value(e)
        text, prec = self.render(e)
        text = f"({text})" if prec < min_prec else text
        if self.marks is not None and id(e) in self.marks.underline:
            from .marks import CLOSE, OPEN

            text = OPEN + text + CLOSE
        return text

    def render(self, e) -> tuple[str, int]:
        for klass in type(e).__mro__:
            method = _RULES.get(klass)
            if method is not None:
                return method(self, e)
        return f"<{type(e).__name__}>", PREC["atom"]

    def typed(self, e) -> str:
        """Like ``expr`` but constants always carry their type (``T.int32(1)``)."""
        if isinstance(e, IntImm) and not e.dtype.is_bool:
            return f"T.{e.dtype}({e.value})"
        return self.expr(e)

    def value(self, v) -> str:
        """A Python value in attributes and annotations (dicts, lists, strings, nodes)."""
        if isinstance(v, bool) or v is None:
            return repr(v)
        if isinstance(v, int | float):
            return repr(v)
        if isinstance(v, str):
            return py_str(v)
        if isinstance(v, DataType):
            return py_str(str(v))
        if isinstance(v, list | tuple):
            inner = ", ".join(self.value(x) for x in v)
            if isinstance(v, tuple):
                return f"({inner},)" if len(v) == 1 else f"({inner})"
            return f"[{inner}]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{self.value(k)}: {self.value(x)}" for k, x in v.items()) + "}"
        if isinstance(v, Buffer):
            return self.buffer(v)
        if isinstance(v, PrimExpr):
            return self.typed(v)
        if isinstance(v, Node):
            return self.expr(v)
        if type(v).__name__ == "Target" and hasattr(v, "host"):  # a Target attribute (ember.target)
            host = f", host={py_str(str(v.host))}" if v.host is not None else ""
            return f"T.target({py_str(str(v))}{host})"
        return repr(v)

    # one method per node class ---------------------------------------------------
    def _int(self, e: IntImm):
        if e.dtype.is_bool:
            return f"T.bool({bool(e.value)})", PREC["atom"]
        if str(e.dtype) == "int32":
            return str(e.value), PREC["unary"] if e.value < 0 else PREC["atom"]
        return f"T.{e.dtype}({e.value})", PREC["atom"]

    def _float(self, e: FloatImm):
        v = e.value
        text = py_str(str(v)) if math.isinf(v) or math.isnan(v) else repr(float(v))
        return f"T.{e.dtype}({text})", PREC["atom"]

    def _string(self, e: StringImm):
        return py_str(e.value), PREC["atom"]

    def _var(self, e: Var):
        return self.var(e), PREC["atom"]

    def _infix(self, e):
        if isinstance(e.a, IntImm | FloatImm) and isinstance(e.b, IntImm | FloatImm):
            # unfolded constant arithmetic: the operator would fold it when parsed
            return f"T.{type(e).__name__}({self.expr(e.a)}, {self.expr(e.b)})", PREC["atom"]
        op, prec = _INFIX[type(e)]
        left_min = prec + 1 if prec == PREC["cmp"] else prec
        return f"{self.expr(e.a, left_min)} {op} {self.expr(e.b, prec + 1)}", prec

    def _div(self, e: Div):
        both_const = isinstance(e.a, IntImm | FloatImm) and isinstance(e.b, IntImm | FloatImm)
        if e.dtype.is_float and not both_const:
            return f"{self.expr(e.a, PREC['mul'])} / {self.expr(e.b, PREC['mul'] + 1)}", PREC["mul"]
        return f"T.Div({self.expr(e.a)}, {self.expr(e.b)})", PREC["atom"]

    def _call_style(self, e):
        if isinstance(e.a, IntImm | FloatImm) and isinstance(e.b, IntImm | FloatImm):
            return f"T.{type(e).__name__}({self.expr(e.a)}, {self.expr(e.b)})", PREC["atom"]
        return f"T.{_CALL_STYLE[type(e)]}({self.expr(e.a)}, {self.expr(e.b)})", PREC["atom"]

    def _not(self, e: Not):
        return f"not {self.expr(e.a, PREC['not'])}", PREC["not"]

    def _cast(self, e: Cast):
        return f"T.Cast({py_str(str(e.dtype))}, {self.expr(e.value)})", PREC["atom"]

    def _select(self, e: Select):
        args = ", ".join(self.expr(x) for x in (e.condition, e.true_value, e.false_value))
        return f"T.Select({args})", PREC["atom"]

    def _ramp(self, e: Ramp):
        return f"T.Ramp({self.expr(e.base)}, {self.expr(e.stride)}, {e.lanes})", PREC["atom"]

    def _broadcast(self, e: Broadcast):
        return f"T.Broadcast({self.expr(e.value)}, {e.lanes})", PREC["atom"]

    def _let(self, e: Let):
        name = self.var(e.var)
        return f"T.Let({self.expr(e.body)}, where={{{name}: {self.expr(e.value)}}})", PREC["atom"]

    def _load(self, e: BufferLoad):
        return f"{self.buffer(e.buffer)}{self.indices(e.indices)}", PREC["atom"]

    def indices(self, indices) -> str:
        if not indices:
            return "[()]"
        return "[" + ", ".join(self.index(i) for i in indices) + "]"

    def index(self, i) -> str:
        """An index; a unit-stride ``Ramp`` prints as the slice it reads (``A[0:4]``)."""
        if (isinstance(i, Ramp) and isinstance(i.stride, IntImm) and i.stride.value >= 1
                and isinstance(i.lanes, int)):
            step = i.stride.value
            length = i.lanes * step
            stop = i.base + IntImm(i.base.dtype, length) if not isinstance(i.base, IntImm) else \
                IntImm(i.base.dtype, i.base.value + length)
            suffix = f":{step}" if step != 1 else ""
            return f"{self.expr(i.base)}:{self.expr(stop)}{suffix}"
        return self.expr(i)

    def _call(self, e: Call):
        args = [self.expr(a) for a in e.args]
        if isinstance(e.op, GlobalVar):
            name = e.op.name_hint
            head = f"cls.{name}" if name in self.module_funcs else f"I.GlobalVar({py_str(name)})"
            return f"{head}({', '.join(args)})", PREC["atom"]
        name = e.op.name if isinstance(e.op, Op) else str(e.op)
        short = name[4:] if name.startswith("tir.") else None
        if short in _DTYPE_FIRST:
            return f"T.{short}({', '.join([py_str(str(e.dtype))] + args)})", PREC["atom"]
        if short in _DTYPE_FROM_ARG and len(e.args) > _DTYPE_FROM_ARG[short]:
            expected = e.args[_DTYPE_FROM_ARG[short]].dtype
            if short in _BOOL_RESULT:
                expected = DataType("bool").with_lanes(expected.lanes)
            if expected is e.dtype:
                return f"T.{short}({', '.join(args)})", PREC["atom"]
        return f"T.call_intrin({', '.join([py_str(str(e.dtype)), py_str(name)] + args)})", PREC["atom"]

    def _range(self, e: Range):
        return f"T.Range({self.expr(e.min)}, {self.expr(range_stop(e))})", PREC["atom"]

    def _region(self, e: BufferRegion):
        return f"{self.buffer(e.buffer)}[{self.region(e.region)}]", PREC["atom"]

    def region(self, ranges) -> str:
        parts = []
        for r in ranges:
            if isinstance(r.extent, IntImm) and r.extent.value == 1:
                parts.append(self.expr(r.min))
            else:
                parts.append(f"{self.expr(r.min)}:{self.expr(range_stop(r))}")
        return ", ".join(parts) if parts else "()"

    def _comm_reducer(self, e):
        """``T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)])``."""
        params = [self.define(v, v.name) for v in (*e.lhs, *e.rhs)]
        results = [self.expr(r) for r in e.result]
        body = results[0] if len(results) == 1 else f"({', '.join(results)})"
        identity = ", ".join(self.typed(v) for v in e.identity_element)
        return f"T.comm_reducer(lambda {', '.join(params)}: {body}, [{identity}])", PREC["atom"]

    def _prim_type(self, e):
        return f"T.{e.dtype}", PREC["atom"]

    def _pointer_type(self, e: PointerType):
        return f"T.handle({py_str(str(e.element_dtype))}, {py_str(e.storage_scope)})", PREC["atom"]

    def _tuple_type(self, e):
        return f"T.Tuple({', '.join(self.expr(f) for f in e.fields)})", PREC["atom"]

    def _op(self, e: Op):
        return f"T.Op({py_str(e.name)})", PREC["atom"]

    def _global_var(self, e: GlobalVar):
        return f"I.GlobalVar({py_str(e.name_hint)})", PREC["atom"]


_RULES = {
    IntImm: ExprPrinter._int, FloatImm: ExprPrinter._float, StringImm: ExprPrinter._string,
    Var: ExprPrinter._var, Div: ExprPrinter._div, Not: ExprPrinter._not, Cast: ExprPrinter._cast,
    Select: ExprPrinter._select, Ramp: ExprPrinter._ramp, Broadcast: ExprPrinter._broadcast,
    Let: ExprPrinter._let, BufferLoad: ExprPrinter._load, Call: ExprPrinter._call,
    Range: ExprPrinter._range, BufferRegion: ExprPrinter._region, Op: ExprPrinter._op,
    GlobalVar: ExprPrinter._global_var,
}
_RULES.update({cls: ExprPrinter._infix for cls in _INFIX})
_RULES[CommReducer] = ExprPrinter._comm_reducer
_RULES[PointerType] = ExprPrinter._pointer_type


def _register_type_rules() -> None:
    """PrimType / TupleType live in ``ember.ir.type`` (added to the tree separately)."""
    try:
        from ember.ir import type as ir_type
    except ImportError:
        return
    for name, rule in (("PrimType", ExprPrinter._prim_type), ("TupleType", ExprPrinter._tuple_type)):
        cls = getattr(ir_type, name, None)
        if cls is not None:
            _RULES[cls] = rule


_register_type_rules()
_RULES.update({cls: ExprPrinter._call_style for cls in _CALL_STYLE})
