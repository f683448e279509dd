"""RemoveNoOp's dataflow part (TVM's ``use_dataflow_analysis`` option) on one sequence.

* **overwritten writes**: a statement that only writes a buffer region — a store, or a
  loop nest around one store whose indices are loop variables or constants — is dead
  when a later statement of the same sequence writes a region covering it
  unconditionally and nothing in between (nor that later value) reads the buffer or
  uses its data pointer.  A dead store whose value has side effects leaves
  ``Evaluate(value)``.
* **known values**: a store (or such a loop) writing what ``BufferFacts`` already knows
  the buffer holds there is dead.

Overwritten writes are removed first, then known values are checked on what is left,
so of two identical loops one stays.
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.arith.int_set import eval_set
from ember.ir import IntImm, Range, Var

from ..buffer import BufferLoad
from ..functor import collect
from ..stmt import BufferStore, Evaluate, For, ForKind

__all__ = ["remove_dead_writes"]


def _single_store_nest(stmt):
    """``(store, loops)`` when ``stmt`` is loops (serial, constant or symbolic bounds)
    around exactly one store, else None."""
    loops = []
    while isinstance(stmt, For) and stmt.kind in (ForKind.SERIAL, ForKind.PARALLEL, ForKind.UNROLLED):
        loops.append(stmt)
        stmt = stmt.body
    return (stmt, loops) if isinstance(stmt, BufferStore) else None


def _region(stmt, ana, exact: bool):
    """Per-dimension IntSets a write statement touches; with ``exact`` only when every
    index is a distinct loop variable of the nest or loop-free (all points written)."""
    found = _single_store_nest(stmt)
    if found is None:
        return None
    store, loops = found
    dom = {lp.loop_var: Range(lp.min, lp.extent) for lp in loops}
    used = set()
    out = []
    for index in store.indices:
        if index.dtype.lanes != 1:
            return None
        if exact:
            vars_in = [v for v in dom if collect(index, lambda x, v=v: x is v)]
            if vars_in and not (index is vars_in[0] and id(index) not in used):
                return None
            if index in dom:
                used.add(id(index))
        out.append(eval_set(index, dom, ana))
    if exact and len(used) != len(loops):
        return None  # a loop not used by the index writes the same element again
    return store, out


def _covers(outer, inner, ana) -> bool:
    return all(
        not o.is_nothing() and o.has_lower_bound() and o.has_upper_bound()
        and ana.can_prove(o.min_value <= i.min_value) and ana.can_prove(i.max_value <= o.max_value)
        for o, i in zip(outer, inner)
    )


def _touches(node, data: Var) -> bool:
    """Whether ``node`` reads ``data``'s memory or names the pointer (a store to it counts)."""
    return bool(collect(node, lambda x: x is data))


def _dead_overwrites(items: list, ana) -> list:
    out = list(items)
    for k, stmt in enumerate(items):
        first = _region(stmt, ana, exact=False)
        if first is None:
            continue
        store, region = first
        data = store.buffer.data
        for later in items[k + 1:]:
            second = _region(later, ana, exact=True)
            if second is not None and second[0].buffer.data is data and \
                    len(second[1]) == len(region) and _covers(second[1], region, ana) and \
                    not _touches(second[0].value, data) and not _touches(second[0].indices, data):
                out[k] = _leftover(stmt, store)
                break
            if _touches(later, data):
                break
    return out


def _leftover(stmt, store):
    from ember.tir.transform.remove_no_op import _has_side_effect

    if stmt is store and _has_side_effect(store.value):
        return Evaluate(store.value)
    return Evaluate(IntImm("int32", 0))


def _known_writes(items: list, facts) -> list:
    from contextlib import ExitStack

    from ember.ir import And, LE, LT

    ana = facts.analyzer
    out = []
    for stmt in items:
        found = _single_store_nest(stmt)
        dead = False
        if found is not None:
            store, loops = found
            with ExitStack() as scopes:
                for lp in loops:  # every iteration must write what is already there
                    scopes.enter_context(ana.constraint_scope(
                        And(LE(lp.min, lp.loop_var), LT(lp.loop_var, lp.min + lp.extent))))
                known = facts.lookup(BufferLoad(store.buffer, tuple(store.indices)))
                dead = known is not None and ana.can_prove_equal(known, store.value)
        if dead:
            out.append(Evaluate(IntImm("int32", 0)))
            continue
        out.append(stmt)
        _learn(stmt, facts)
    return out


def _learn(stmt, facts) -> None:
    found = _single_store_nest(stmt)
    if found is not None and len(found[1]) == 1 and isinstance(stmt, For):
        saved = facts.enter_loop(stmt)
        facts.exit_loop(stmt, stmt.body, saved)
        return
    if isinstance(stmt, BufferStore):
        facts.store(stmt)
        return
    facts.forget_written(stmt)


def remove_dead_writes(items: list, facts) -> list:
    """The statements of one sequence with dead writes replaced by no-ops."""
    ana = facts.analyzer if facts is not None else Analyzer()
    items = _dead_overwrites(items, ana)
    if facts is not None:
        items = _known_writes(items, facts)
    return items

