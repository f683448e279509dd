"""``merge``: several loop nests of one scope become one, their bodies in sequence.

``merge(l_1, …, l_n)`` takes loops at the same depth of n sibling loop nests.  From
each nest's outermost loop down to the given loop every loop must be the only statement
of its parent, start at 0, and have the same extent as the loops at that level of the
other nests.  Those levels become one nest (``<first loop>_m`` at each level) placed
where the first nest was; under it the bodies of the given loops run one after another.

Merging interleaves the nests' iterations, so it is refused when one nest writes a
buffer that another nest (or a statement between the nests) reads or writes.
"""

from __future__ import annotations

from ember.ir import IntImm, Var
from ember.tir.functor import substitute
from ember.tir.stmt import For, SeqStmt, seq

from . import _arith
from .analysis import blocks_under, path_to, replace_stmts
from .errors import ScheduleError

__all__ = ["merge"]


def _chain(func, loop: For) -> list[For]:
    """The loops from the outermost of ``loop``'s nest (within its block scope) down to it."""
    chain = [loop]
    for s in reversed(path_to(func.body, loop) or []):
        if not isinstance(s, For):
            break
        chain.insert(0, s)
    return chain


def _parent(func, stmt):
    path = path_to(func.body, stmt) or []
    return path[-1] if path else None


def _accesses(stmt) -> tuple[set, set]:
    reads, writes = set(), set()
    for realize in blocks_under(stmt):
        if realize.block.name_hint == "root":
            continue
        reads |= {id(r.buffer) for r in realize.block.reads}
        writes |= {id(w.buffer) for w in realize.block.writes}
    return reads, writes


def merge(func, loops: list[For]):
    """Merge the loop nests of ``loops``; returns (func, var of the merged given level)."""
    if len(loops) < 2:
        raise ScheduleError("merge needs at least two loops", func)
    if len({id(lp) for lp in loops}) != len(loops):
        raise ScheduleError("merge got the same loop twice", func, loop=loops[0])
    chains = [_chain(func, lp) for lp in loops]
    depth = len(chains[0])
    for lp, chain in zip(loops, chains):
        if len(chain) != depth:
            raise ScheduleError(f"merge: loop {lp.loop_var.name!r} is at depth {len(chain)} of its nest but "
                                f"loop {loops[0].loop_var.name!r} is at depth {depth}; the loops must be at "
                                "the same level", func, loop=lp)
        for outer, inner in zip(chain, chain[1:]):
            if outer.body is not inner:
                raise ScheduleError(f"merge: loop {inner.loop_var.name!r} is not the only child of loop "
                                    f"{outer.loop_var.name!r}", func, loop=inner)
    parents = [_parent(func, chain[0]) for chain in chains]
    if any(p is not parents[0] for p in parents) or not isinstance(parents[0], SeqStmt):
        raise ScheduleError("merge: the loop nests must be siblings in one statement sequence of the same "
                            "block scope", func, loop=loops[0])
    for level in range(depth):
        first = chains[0][level]
        for chain in chains:
            lp = chain[level]
            if not (isinstance(lp.min, IntImm) and lp.min.value == 0):
                raise ScheduleError(f"merge: loop {lp.loop_var.name!r} does not start at 0", func, loop=lp)
            if not _arith.is_const(_arith.simplify(lp.extent - first.extent), 0):
                raise ScheduleError(f"merge: loop {lp.loop_var.name!r} has extent {lp.extent} but loop "
                                    f"{first.loop_var.name!r} at the same level has {first.extent}",
                                    func, loop=lp)
    _check_independent(func, parents[0], [chain[0] for chain in chains])
    new_vars = [Var(lp.loop_var.name + "_m", lp.loop_var.dtype) for lp in chains[0]]
    bodies = [substitute(chain[-1].body, {lp.loop_var: v for lp, v in zip(chain, new_vars)})
              for chain in chains]
    body = seq(*bodies)
    for lp, var in reversed(list(zip(chains[0], new_vars))):
        body = For(var, lp.min, lp.extent, lp.kind, body, lp.thread_binding, lp.annotations)
    mapping = {chains[0][0]: body, **{chain[0]: None for chain in chains[1:]}}
    return replace_stmts(func, mapping), new_vars[-1]


def _check_independent(func, parent: SeqStmt, nests: list) -> None:
    positions = [next(k for k, s in enumerate(parent.seq) if s is nest) for nest in nests]
    lo, hi = min(positions), max(positions)
    between = [s for k, s in enumerate(parent.seq) if lo < k < hi and k not in positions]
    touched = [_accesses(n) for n in nests]
    for k, (_, writes) in enumerate(touched):
        for j, (reads_j, writes_j) in enumerate(touched):
            if j != k and writes & (reads_j | writes_j):
                raise ScheduleError("merge: a loop nest writes a buffer another merged nest accesses; merging "
                                    "would reorder their iterations", func, loop=nests[j])
        for s in between:
            r, w = _accesses(s)
            if writes & (r | w) or w & (touched[k][0] | writes):
                raise ScheduleError("merge: a statement between the loop nests accesses a buffer they write "
                                    "(or writes one they read)", func, loop=nests[k])

