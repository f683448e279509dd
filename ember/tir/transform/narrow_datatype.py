"""NarrowDataType(target_bits): compute indices in fewer bits where their values fit.

Shapes and loops written with int64 (or int32) often index far less memory than that
width can address; narrower index arithmetic is cheaper, most of all on GPUs.  With
every loop variable and thread index bound to its range, the bound of each integer
expression is known:

* a loop or thread variable wider than ``target_bits`` is narrowed when every index
  expression (buffer indices, loop extents, thread extents, conditions) that uses it
  stays within ``target_bits`` — a single overflowing index keeps it wide;
* then, bottom-up, each wider integer expression whose operands could be narrowed and
  whose own bound fits is rebuilt in ``target_bits`` (constants narrowed, casts between
  the two widths dropped); where a narrow value meets a wide one it is cast back up.

Data values keep their type unless their bound fits (an int32 load widened to int64
and divided by a small positive number is computed in int32, as TVM does).
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import Cast, DataType, IntImm, PrimExpr, Range, Var, const, replace
from ember.transform import Pass

from ..buffer import BufferLoad
from ..function import PrimFunc
from ..functor import IRMutator, IRVisitor, collect
from ..stmt import AttrStmt, BufferStore, For, IterVar
from ._common import make_pass

__all__ = ["narrow_datatype", "NarrowDataType"]


def _is_wide(dtype: DataType, bits: int) -> bool:
    return dtype.is_int and dtype.lanes == 1 and dtype.bits > bits


class _Bounds(IRVisitor):
    """Pass 1: which nodes fit in ``bits`` and which loop/thread Vars must stay wide."""

    def __init__(self, bits: int):
        self.bits = bits
        self.lo, self.hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        self.analyzer = Analyzer()
        self.fits: dict[int, bool] = {}
        self.keep: list = []  # nodes whose ids are keys of ``fits``
        self.wide_vars: set[int] = set()

    def _bind(self, var: Var, lo, extent) -> None:
        try:
            self.analyzer.bind(var, Range(lo, extent))
        except ValueError:
            pass

    def check(self, expr) -> bool:
        """Record, bottom-up, whether each wide node of ``expr`` fits; True if ``expr`` does."""
        if not isinstance(expr, PrimExpr):
            return True
        children = [getattr(expr, f) for f in ("a", "b", "value", "condition", "true_value",
                                                "false_value") if isinstance(getattr(expr, f, None), PrimExpr)]
        children += [a for a in getattr(expr, "args", ()) if isinstance(a, PrimExpr)]
        if isinstance(expr, BufferLoad):
            children = list(expr.indices)
        ok = all([self.check(c) for c in children])
        if _is_wide(expr.dtype, self.bits) and not isinstance(expr, BufferLoad):
            bound = self.analyzer.const_int_bound(expr)
            own = self.lo <= bound.min_value and bound.max_value <= self.hi
            fits = own and (isinstance(expr, Var | IntImm | Cast) or ok)
            self.fits[id(expr)] = fits
            self.keep.append(expr)
            return fits
        return True

    def index(self, expr) -> None:
        """An index-like expression: its wide Vars stay wide unless all of it fits."""
        self.check(expr)
        for node in collect(expr, lambda x: isinstance(x, PrimExpr) and id(x) in self.fits):
            if not self.fits[id(node)]:
                for v in collect(node, lambda x: isinstance(x, Var)):
                    self.wide_vars.add(id(v))

    def visit_For(self, loop: For):
        self.index(loop.min)
        self.index(loop.extent)
        self._bind(loop.loop_var, loop.min, loop.extent)
        self.loop_var(loop.loop_var, loop.extent)
        self.visit(loop.body)

    def loop_var(self, var: Var, extent) -> None:
        """A loop or thread Var stays wide when its range or its extent does not fit."""
        if self.check(var) is False or self.fits.get(id(extent)) is False:
            self.wide_vars.add(id(var))

    def visit_AttrStmt(self, stmt: AttrStmt):
        if stmt.attr_key in ("thread_extent", "virtual_thread") and isinstance(stmt.node, IterVar):
            self.index(stmt.value)
            var = stmt.node.var
            self._bind(var, const(0, var.dtype), stmt.value)
            self.loop_var(var, stmt.value)
        self.generic_visit(stmt)

    def visit_BufferLoad(self, load: BufferLoad):
        for i in load.indices:
            self.index(i)

    def visit_BufferStore(self, store: BufferStore):
        for i in store.indices:
            self.index(i)
        self.check(store.value)
        self.visit(store.value)

    def visit_IfThenElse(self, stmt):
        self.index(stmt.condition)
        self.generic_visit(stmt)

    def visit_Block(self, block):
        for iv in block.iter_vars:
            if iv.dom is not None:
                self.index(iv.dom.min)
                self.index(iv.dom.extent)
                self._bind(iv.var, iv.dom.min, iv.dom.extent)
                self.loop_var(iv.var, iv.dom.extent)
        self.generic_visit(block)

    def visit_BlockRealize(self, realize):
        for v in realize.iter_values:
            self.index(v)
        self.generic_visit(realize)


class _Rewriter(IRMutator):
    """Pass 2: rebuild fitting wide nodes in the narrow type."""

    def __init__(self, bounds: _Bounds):
        super().__init__()
        self.bounds = bounds
        self.narrow = DataType(f"int{bounds.bits}")
        self.vars: dict[int, Var] = {}

    def _narrowable(self, node) -> bool:
        return self.bounds.fits.get(id(node), False)

    def visit_Var(self, var: Var):
        if _is_wide(var.dtype, self.bounds.bits) and id(var) not in self.bounds.wide_vars \
                and self._narrowable(var):
            new = self.vars.get(id(var))
            if new is None:
                new = self.vars[id(var)] = Var(var.name, self.narrow)
            return new
        return var

    def visit(self, x):
        if isinstance(x, PrimExpr) and not isinstance(x, Var) and _is_wide(x.dtype, self.bounds.bits):
            return self._expr(x)
        return super().visit(x)

    def _expr(self, expr):
        wide = expr.dtype
        if isinstance(expr, IntImm):
            return IntImm(self.narrow, expr.value) if self._narrowable(expr) else expr
        if isinstance(expr, Cast):
            value = self.visit(expr.value)
            if self._narrowable(expr) and value.dtype.is_int and value.dtype.bits <= self.bounds.bits:
                return value if value.dtype == self.narrow else Cast(self.narrow, value)
            return expr if value is expr.value else Cast(wide, value)
        rebuilt = super().visit(expr)  # children first (they may now be narrow)
        if rebuilt.dtype == wide:
            return rebuilt
        if self._narrowable(expr):
            return rebuilt
        return Cast(wide, rebuilt)  # a narrow result where the wide one was expected

    def generic_visit(self, x):
        out = super().generic_visit(x)
        # operands of one node must agree: widen the narrow side where the other stayed wide
        a, b = getattr(out, "a", None), getattr(out, "b", None)
        if isinstance(a, PrimExpr) and isinstance(b, PrimExpr) and a.dtype != b.dtype \
                and a.dtype.is_int and b.dtype.is_int:
            target = a.dtype if a.dtype.bits > b.dtype.bits else b.dtype
            a = a if a.dtype == target else _widen(a, target)
            b = b if b.dtype == target else _widen(b, target)
            out = replace(out, a=a, b=b)
        return out


def _widen(expr, dtype):
    return IntImm(dtype, expr.value) if isinstance(expr, IntImm) else Cast(dtype, expr)


def narrow_datatype(func: PrimFunc, target_bits: int) -> PrimFunc:
    """``func`` with its index arithmetic in ``target_bits`` wherever the values fit."""
    bounds = _Bounds(target_bits)
    bounds.visit(func.body)
    body = _Rewriter(bounds).visit(func.body)
    return func if body is func.body else func.with_body(body)


def NarrowDataType(target_bits: int) -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`narrow_datatype`."""
    return make_pass(lambda func: narrow_datatype(func, target_bits), "tir.NarrowDataType")
