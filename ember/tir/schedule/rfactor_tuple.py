"""The reductions rfactor handles beyond ``C[i] = C[i] op value``: several accumulators
updated together by selects (argmax / argmin: an index and a value).

Such a block inits each accumulator ``X_k[idx]`` to a constant and updates all of them at
once, usually through lets::

    v0 = T.Select(X1[i] >= val[i, k], X0[i], idx[i, k])
    v1 = T.Select(X1[i] >= val[i, k], X1[i], val[i, k])
    X0[i] = v0
    X1[i] = v1

Each update is a select with the accumulator's own old value on one side; the other side
``y_k`` is the element being reduced in.  The rfactor block runs the same code on partial
accumulators ``X_k_rf`` (one per value of the rfactor loop), and the write-back block
runs it on the original accumulators with every ``y_k`` replaced by the partial
``X_k_rf[..]`` it combines.
"""

from __future__ import annotations

from ember.ir import PrimExpr, Select, Var, structural_equal
from ember.tir.buffer import BufferLoad
from ember.tir.functor import IRMutator, collect, substitute
from ember.tir.stmt import BufferStore, IterVarType, LetStmt, SeqStmt, seq

from .errors import ScheduleError

__all__ = ["TupleReduction", "tuple_reduction"]


def _stores(stmt) -> list | None:
    if isinstance(stmt, BufferStore):
        return [stmt]
    if isinstance(stmt, SeqStmt) and all(isinstance(s, BufferStore) for s in stmt.seq):
        return list(stmt.seq)
    return None


def tuple_reduction(func, block) -> TupleReduction | None:
    """The block as a multi-accumulator reduction, or None when it has a single store."""
    lets, body = [], block.body
    while isinstance(body, LetStmt):
        lets.append((body.var, body.value))
        body = body.body
    stores, inits = _stores(body), _stores(block.init) if block.init is not None else None
    if stores is None or len(stores) < 2:
        return None
    return TupleReduction(func, block, lets, stores, inits)


class TupleReduction:
    def __init__(self, func, block, lets, stores, inits):
        what = f"rfactor: block {block.name_hint!r}"
        let_vars = [var for var, _ in lets]
        if len(lets) != len(stores) or any(not any(s.value is v for v in let_vars) for s in stores) or \
                len({id(s.value) for s in stores}) != len(stores):
            raise ScheduleError(f"{what} must bind each accumulator's new value with a let (as many lets as "
                                "stores) and store exactly those values", func, block=block)
        order = [id(w.buffer) for w in block.writes]  # the accumulators in the order the block declares them
        stores = sorted(stores, key=lambda s: order.index(id(s.buffer)) if id(s.buffer) in order else len(order))
        self.lets, self.stores = lets, stores
        self.buffers = [s.buffer for s in stores]
        self.indices = stores[0].indices
        if inits is None or {id(s.buffer) for s in inits} != {id(b) for b in self.buffers} or \
                len({id(b) for b in self.buffers}) != len(stores):
            raise ScheduleError(f"{what} must init each of the buffers it updates once", func, block=block)
        for s in stores + inits:
            if len(s.indices) != len(self.indices) or not all(
                    structural_equal(a, b, map_free_vars=False) for a, b in zip(s.indices, self.indices)):
                raise ScheduleError(f"{what} must init and update every accumulator at the same element",
                                    func, block=block)
        self.inits = sorted(inits, key=lambda s: [id(b) for b in self.buffers].index(id(s.buffer)))
        env = {}
        for var, value in lets:
            env[var] = substitute(value, env)
        self.others = []  # y_k: what accumulator k takes in when the select picks the new element
        for s in stores:
            update = substitute(s.value, env)
            own = BufferLoad(s.buffer, self.indices)
            if not isinstance(update, Select):
                raise ScheduleError(f"{what} must update each accumulator with a select between its old value "
                                    "and the element reduced in (argmax / argmin form)", func, block=block)
            if structural_equal(update.true_value, own, map_free_vars=False):
                self.others.append(update.false_value)
            elif structural_equal(update.false_value, own, map_free_vars=False):
                self.others.append(update.true_value)
            else:
                raise ScheduleError(f"{what}: the update of {s.buffer.name!r} does not keep its old value on "
                                    "either side of its select", func, block=block)

    def rf_parts(self, rf_bufs, rf_idx, red_map):
        """(body, init) of the rfactor block: the same code on the partial accumulators."""
        swap = _SwapAccumulators(dict(zip(map(id, self.buffers), rf_bufs)), rf_idx)
        fresh = {var: Var(var.name + "_rf", var.dtype) for var, _ in self.lets}

        def rewrite(x):
            return swap.visit(substitute(substitute(x, red_map), fresh))

        stores = [BufferStore(rf, rewrite(s.value), rf_idx) for s, rf in zip(self.stores, rf_bufs)]
        body = seq(*stores)
        for var, value in reversed(self.lets):
            body = LetStmt(fresh[var], rewrite(value), body)
        init = seq(*[BufferStore(rf, s.value, rf_idx) for s, rf in zip(self.inits, rf_bufs)])
        return body, init

    def wb_parts(self, rf_bufs, out_idx, rf_idx, ivmap, func, block):
        """(body, init) of the write-back block: the accumulators combine the partials."""
        parts = [(y, BufferLoad(rf, rf_idx)) for y, rf in zip(self.others, rf_bufs)]
        take = _TakePartials(parts)
        fresh = {var: Var(var.name, var.dtype) for var, _ in self.lets}

        def rewrite(x):
            return substitute(substitute(take.visit(x), fresh), ivmap)

        stores = [BufferStore(s.buffer, rewrite(s.value), out_idx) for s in self.stores]
        body = seq(*stores)
        for var, value in reversed(self.lets):
            body = LetStmt(fresh[var], rewrite(value), body)
        reduce_vars = {iv.var for iv in block.iter_vars if iv.iter_type == IterVarType.CommReduce}
        if any(v in reduce_vars for v in collect(body, lambda n: isinstance(n, Var))):
            raise ScheduleError(f"rfactor: block {block.name_hint!r} uses its reduction iterators outside the "
                                "elements it reduces in", func, block=block)
        init = substitute(seq(*self.inits), ivmap)  # in the order the block declares its writes, as TVM
        return body, init


class _SwapAccumulators(IRMutator):
    """Loads of the accumulators become loads of their partials at ``idx``."""

    def __init__(self, mapping: dict, idx):
        super().__init__()
        self.mapping, self.idx = mapping, idx

    def visit_BufferLoad(self, load):
        rf = self.mapping.get(id(load.buffer))
        return BufferLoad(rf, self.idx) if rf is not None else self.generic_visit(load)


class _TakePartials(IRMutator):
    """Each element reduced in (``y_k``, matched as a whole, outermost first) becomes the
    partial it stands for."""

    def __init__(self, parts):
        super().__init__()
        self.parts = parts

    def visit(self, x):
        if isinstance(x, PrimExpr):
            for y, partial in self.parts:
                if structural_equal(x, y, map_free_vars=False):
                    return partial
        return super().visit(x)

