"""``index_dtype_override``: rewrite a PrimFunc's index arithmetic to another int type.

Shape dimensions, loop bounds, block iterator domains and bindings and buffer indices
are converted; loop, block and shape Vars of the old index type are replaced by Vars of
the new one, and arithmetic mixing them is rebuilt with the usual promotion.
"""

from __future__ import annotations

from ember.ir import DataType, IntImm, Range, Var, binary, const, replace
from ember.tir import IRMutator
from ember.tir import op as tir_op

__all__ = ["override_index_dtype"]


class _Retype(IRMutator):
    def __init__(self, dtype: DataType):
        super().__init__()
        self.dtype = dtype
        self.vars: dict = {}

    def idx(self, e):
        e = self.visit(e)
        if e.dtype.is_integer and e.dtype is not self.dtype and e.dtype.lanes == 1:
            return const(e.value, self.dtype) if isinstance(e, IntImm) else tir_op.cast(e, self.dtype)
        return e

    def visit_Var(self, v):
        if v.dtype.is_integer and v.dtype is not self.dtype and v in self.vars:
            return self.vars[v]
        return v

    def retype_var(self, v):
        if not v.dtype.is_integer or v.dtype is self.dtype:
            return v
        if v not in self.vars:
            self.vars[v] = type(v)(v.name, self.dtype)
        return self.vars[v]

    def visit_BinaryOp(self, e):
        a, b = self.visit(e.a), self.visit(e.b)
        if a is e.a and b is e.b:
            return e
        return binary(type(e), a, b)

    def visit_Buffer(self, b):
        for dim in b.shape:
            _collect_vars(dim, self.retype_var)
        return replace(b, shape=tuple(self.idx(s) for s in b.shape))

    def visit_For(self, s):
        lv = self.retype_var(s.loop_var)
        return replace(s, loop_var=lv, min=self.idx(s.min), extent=self.idx(s.extent),
                       body=self.visit(s.body))

    def visit_IterVar(self, iv):
        var = self.retype_var(iv.var)
        dom = iv.dom if iv.dom is None else Range(self.idx(iv.dom.min), self.idx(iv.dom.extent))
        return replace(iv, var=var, dom=dom)

    def visit_Range(self, r):
        return Range(self.idx(r.min), self.idx(r.extent))

    def visit_BlockRealize(self, s):
        block = self.visit(s.block)
        values = tuple(self.idx(v) for v in s.iter_values)
        return replace(s, iter_values=values, predicate=self.visit(s.predicate), block=block)

    def visit_BufferLoad(self, e):
        return replace(e, buffer=self.visit(e.buffer), indices=tuple(self.idx(i) for i in e.indices))

    def visit_BufferStore(self, s):
        return replace(s, buffer=self.visit(s.buffer), value=self.visit(s.value),
                       indices=tuple(self.idx(i) for i in s.indices))


def _collect_vars(expr, fn) -> None:
    from ember.tir import post_order_visit

    post_order_visit(expr, lambda x: fn(x) if isinstance(x, Var) else None)


def override_index_dtype(func, dtype: DataType):
    """``func`` with its index expressions in ``dtype`` (e.g. int64)."""
    if not dtype.is_integer:
        raise TypeError(f"index_dtype_override must be an integer type, got {dtype}")
    mutator = _Retype(dtype)
    buffer_map = {p: mutator.visit(b) for p, b in func.buffer_map.items()}
    body = mutator.visit(func.body)
    params = tuple(mutator.visit(p) for p in func.params)
    return replace(func, params=params, body=body, buffer_map=buffer_map)

