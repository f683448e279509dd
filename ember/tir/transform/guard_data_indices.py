"""GuardDataDependentIndices: an index read from data cannot take a kernel out of its buffer.

A kernel whose index comes from a tensor's values (gather, gather_nd, scatter_nd, an
embedding, ``A[B[i]]`` in TVMScript) would read or write outside the buffer when the
data holds an out-of-range value, and a wild access ends the process (SIGSEGV).  The
argument checks cannot see this: the indices are values, not shapes.  This pass makes
such accesses safe, at the cost of a min/max per access that needs it (and a gather
where a data-dependent offset had allowed one contiguous vector load):

* a ``BufferLoad`` dimension whose index depends on data is clamped into
  ``[0, extent - 1]`` (an out-of-range index reads the nearest edge element);
* a ``BufferStore`` with such an index happens only when every such index is in range
  (an out-of-range write is dropped).

"Depends on data" means the index expression contains a ``BufferLoad``, or a variable
bound (``LetStmt``, ``Let``) to one, or a loop variable whose bounds do.  Indices built
from loop variables, shape variables and scalar arguments are left alone: the schedule
and the argument checks keep those in range (see docs/fuzzing.md for what is not checked).

Runs on multi-dimensional accesses, after LowerOpaqueBlock and CompactBufferAllocation
and before FlattenBuffer, so each dimension is bounded by its own extent.
"""

from __future__ import annotations

from ember.ir import Cast, Let, Var, const
from ember.transform import Pass

from .. import op as tir_op
from ..buffer import BufferLoad
from ..function import PrimFunc
from ..functor import IRMutator, pre_order_visit
from ..stmt import BufferStore, For, IfThenElse, LetStmt
from ._common import make_pass

__all__ = ["guard_data_dependent_indices", "GuardDataDependentIndices"]


def _before_narrowing(index):
    """The value to range-check: an int64 index cast down to int32 is checked before the
    cast (else 2**40 would wrap to 0 and pass as in range)."""
    if isinstance(index, Cast):
        src = index.value.dtype
        if (src.is_int or src.is_uint) and src.bits > index.dtype.bits:
            return index.value
    return index


class _Guard(IRMutator):
    def __init__(self):
        super().__init__()
        self.data_vars: set[int] = set()  # ids of Vars whose value depends on data

    def depends_on_data(self, expr) -> bool:
        found = []

        def visit(node):
            if found:
                return False
            if isinstance(node, BufferLoad) or (isinstance(node, Var) and id(node) in self.data_vars):
                found.append(node)
                return False
            return True

        pre_order_visit(expr, visit)
        return bool(found)

    # -- where data-dependent values come from -------------------------------------------------
    def visit_LetStmt(self, stmt: LetStmt):
        value = self.visit(stmt.value)
        if self.depends_on_data(value):
            self.data_vars.add(id(stmt.var))
        body = self.visit(stmt.body)
        return stmt if value is stmt.value and body is stmt.body else LetStmt(stmt.var, value, body)

    def visit_Let(self, expr: Let):
        value = self.visit(expr.value)
        if self.depends_on_data(value):
            self.data_vars.add(id(expr.var))
        body = self.visit(expr.body)
        return expr if value is expr.value and body is expr.body else Let(expr.var, value, body)

    def visit_For(self, loop: For):
        if self.depends_on_data(loop.min) or self.depends_on_data(loop.extent):
            self.data_vars.add(id(loop.loop_var))
        return self.generic_visit(loop)

    # -- the accesses ---------------------------------------------------------------------------
    def visit_BufferLoad(self, load: BufferLoad):
        indices = self.visit(load.indices)
        guarded = []
        for index, extent in zip(indices, load.buffer.shape):
            if index.dtype.lanes == 1 and self.depends_on_data(index):
                wide = _before_narrowing(index)
                last = tir_op.cast(extent, wide.dtype) - const(1, wide.dtype)
                index = tir_op.cast(tir_op.max(tir_op.min(wide, last), const(0, wide.dtype)), index.dtype)
            guarded.append(index)
        guarded = tuple(guarded)
        if all(a is b for a, b in zip(guarded, load.indices)):
            return load
        return BufferLoad(load.buffer, guarded)

    def visit_BufferStore(self, store: BufferStore):
        value, indices = self.visit(store.value), self.visit(store.indices)
        conds = []
        for index, extent in zip(indices, store.buffer.shape):
            if index.dtype.lanes == 1 and self.depends_on_data(index):
                wide = _before_narrowing(index)
                conds.append(wide >= const(0, wide.dtype))
                conds.append(wide < tir_op.cast(extent, wide.dtype))
        if value is store.value and all(a is b for a, b in zip(indices, store.indices)) and not conds:
            return store
        out = BufferStore(store.buffer, value, tuple(indices))
        return IfThenElse(tir_op.all(*conds), out) if conds else out


def guard_data_dependent_indices(func: PrimFunc) -> PrimFunc:
    """Clamp data-dependent load indices and guard data-dependent stores in ``func``."""
    body = _Guard().visit(func.body)
    return func if body is func.body else func.with_body(body)


def GuardDataDependentIndices() -> Pass:  # noqa: N802 - pass factories carry TVM-style names
    """The pass form of :func:`guard_data_dependent_indices`."""
    return make_pass(guard_data_dependent_indices, "tir.GuardDataDependentIndices")
