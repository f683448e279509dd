"""Known buffer contents for Simplify (TVM's ``propagate_knowns_to_prove_conditional``).

Simplify walks statements in execution order; ``BufferFacts`` records what the walk has
seen written (``A[0] = 0``, ``A[ramp(0, 1, 4)] = broadcast(0, 4)``), assumed
(``T.assume(A[i] == i)``) or tested (inside ``if A[0] == n:``), as *facts*
``A[index] == value`` with values free of buffer loads:

* a store's value is resolved through the facts first, so ``A[0] = A[0] + 1`` after
  ``A[0] = 0`` records ``A[0] == 1``; a store forgets the facts of its buffer at indices
  that may be the same;
* a loop whose body unconditionally writes or assumes ``A[i]`` (``i`` the loop variable)
  leaves the fact for the whole range ``A[p] == f(p)``;
* statements that may write a buffer without a known value — a branch, a loop that
  writes other than element-wise — forget that buffer's facts;
* inside an element-wise loop (every write to the buffer at ``[i]``) facts from before
  the loop are kept for element ``i`` until the body writes it.

``resolve(expr)`` replaces the loads it knows; Simplify uses it to prove branch
conditions (and, with ``propagate_knowns_to_simplify_expressions``, in stored values).
"""

from __future__ import annotations

import dataclasses

from ember.ir import EQ, Ramp, Range, Var
from ember.ir import Broadcast as BroadcastExpr

from ..buffer import BufferLoad
from ..functor import IRMutator, collect, post_order_visit, substitute
from ..stmt import BufferStore, Evaluate, For, stmt_list
from ._common import call_op_name

__all__ = ["BufferFacts"]


@dataclasses.dataclass
class _Fact:
    key: int  # id of the buffer's data Var
    indices: tuple  # the element (pattern Var for a range fact)
    value: object
    pattern: Var | None = None  # a range fact: indices == (pattern,) over ``domain``
    domain: Range | None = None


def _has_load(e) -> bool:
    return bool(collect(e, lambda x: isinstance(x, BufferLoad)))


def _writes(stmt) -> list:
    out = []
    post_order_visit(stmt, lambda n: out.append(n) if isinstance(n, BufferStore) else None)
    return out


class BufferFacts:
    def __init__(self, analyzer):
        self.analyzer = analyzer
        self.facts: list[_Fact] = []

    # -- reading -------------------------------------------------------------------------

    def lookup(self, load: BufferLoad):
        key = id(load.buffer.data)
        for fact in reversed(self.facts):
            if fact.key != key or len(fact.indices) != len(load.indices):
                continue
            if fact.pattern is not None:
                (index,) = load.indices
                dom = fact.domain
                if index.dtype.lanes == 1 and self.analyzer.can_prove(dom.min <= index) and \
                        self.analyzer.can_prove(index < dom.min + dom.extent):
                    return substitute(fact.value, {fact.pattern: index})
                continue
            if all(self.analyzer.can_prove_equal(a, b) for a, b in zip(fact.indices, load.indices)):
                return fact.value
        return None

    def resolve(self, expr):
        """``expr`` with every load whose value is known replaced by that value."""
        if not self.facts or not _has_load(expr):
            return expr
        facts = self

        class R(IRMutator):
            def visit_BufferLoad(self, load):
                load = self.generic_visit(load)
                known = facts.lookup(load)
                return load if known is None else known

        return R().visit(expr)

    # -- writing -------------------------------------------------------------------------

    def forget(self, key: int) -> None:
        self.facts = [f for f in self.facts if f.key != key]

    def forget_written(self, stmt) -> None:
        for store in _writes(stmt):
            self.forget(id(store.buffer.data))

    def _forget_overlapping(self, key, indices) -> None:
        def distinct(f):
            if f.pattern is not None or len(f.indices) != len(indices):
                return False
            return any(self.analyzer.can_prove(a != b) for a, b in zip(f.indices, indices))

        self.facts = [f for f in self.facts if f.key != key or distinct(f)]

    def store(self, store: BufferStore) -> None:
        """Learn from a store executed unconditionally at this point."""
        key = id(store.buffer.data)
        value = self.analyzer.simplify(self.resolve(store.value))
        indices = store.indices
        if len(indices) == 1 and isinstance(indices[0], Ramp) and isinstance(indices[0].lanes, int):
            self.forget(key)  # per-lane facts of a vector store
            ramp = indices[0]
            for lane in range(ramp.lanes):
                lane_value = _lane(value, lane)
                if lane_value is None:
                    return
                index = self.analyzer.simplify(ramp.base + ramp.stride * lane)
                self.facts.append(_Fact(key, (index,), self.analyzer.simplify(lane_value)))
            return
        self._forget_overlapping(key, indices)
        if not _has_load(value) and value.dtype.lanes == 1:
            self.facts.append(_Fact(key, tuple(indices), value))

    def assume(self, cond) -> None:
        """Learn ``A[index] == value`` from ``T.assume`` or a branch condition."""
        if isinstance(cond, EQ):
            for load, value in ((cond.a, cond.b), (cond.b, cond.a)):
                if isinstance(load, BufferLoad) and not _has_load(load.indices) and not _has_load(value):
                    self.facts.append(_Fact(id(load.buffer.data), tuple(load.indices), value))
                    return

    # -- loops ---------------------------------------------------------------------------

    def enter_loop(self, loop: For) -> list:
        """Before a loop body: keep facts only for buffers it writes element-wise (then
        only for element ``i``); returns the saved facts for :meth:`exit_loop`."""
        saved = list(self.facts)
        var = loop.loop_var
        elementwise: dict = {}
        for store in _writes(loop.body):
            key = id(store.buffer.data)
            ok = len(store.indices) == 1 and store.indices[0] is var
            elementwise[key] = elementwise.get(key, True) and ok
        for key, ok in elementwise.items():
            if not ok:
                self.forget(key)
                continue
            kept = []
            for f in self.facts:
                if f.key == key and f.pattern is not None:
                    dom = f.domain
                    if self.analyzer.can_prove(dom.min <= loop.min) and \
                            self.analyzer.can_prove(loop.min + loop.extent <= dom.min + dom.extent):
                        kept.append(_Fact(key, (var,), substitute(f.value, {f.pattern: var})))
                    continue
                if f.key == key:
                    continue
                kept.append(f)
            self.facts = kept
        return saved

    def exit_loop(self, loop: For, body, saved: list) -> None:
        """After a loop: what it wrote or assumed for every ``A[i]`` holds for the range."""
        var = loop.loop_var
        written = {id(s.buffer.data) for s in _writes(body)}
        self.facts = [f for f in saved if f.key not in written]
        for stmt in stmt_list(body):
            fact = None
            if isinstance(stmt, BufferStore) and len(stmt.indices) == 1 and stmt.indices[0] is var:
                value = self.analyzer.simplify(stmt.value)
                if not _has_load(value):
                    fact = (id(stmt.buffer.data), value)
            elif isinstance(stmt, Evaluate) and call_op_name(stmt.value) == "tir.assume":
                cond = stmt.value.args[0]
                if isinstance(cond, EQ):
                    for load, value in ((cond.a, cond.b), (cond.b, cond.a)):
                        if isinstance(load, BufferLoad) and len(load.indices) == 1 and \
                                load.indices[0] is var and not _has_load(value):
                            fact = (id(load.buffer.data), value)
                            break
            if fact is None:
                continue
            key, value = fact
            stores = [s for s in _writes(body) if id(s.buffer.data) == key]
            if len(stores) > (1 if isinstance(stmt, BufferStore) else 0):
                continue  # the element may be written again in the body
            pattern = Var(var.name, var.dtype)
            self.facts.append(_Fact(key, (pattern,), substitute(value, {var: pattern}), pattern,
                                    Range(loop.min, loop.extent)))


def _lane(value, lane: int):
    if isinstance(value, BroadcastExpr):
        return value.value
    if isinstance(value, Ramp):
        return value.base + value.stride * lane
    if value.dtype.lanes == 1:
        return value
    return None

