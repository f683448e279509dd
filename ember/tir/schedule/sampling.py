"""Sampling primitives: perfect tiles, categorical choices and compute locations.

Each sampler is a pure function of a ``random.Random`` (seeded from the schedule, so
results are deterministic under ``seed``) that returns a *decision*; a decision given
by the caller (or a replayed trace) is validated and used instead of sampling.
"""

from __future__ import annotations

import random
from functools import lru_cache

from .analysis import consumers, loops_above
from .errors import ScheduleError

__all__ = ["perfect_tiles", "sample_perfect_tile", "sample_categorical", "compute_location_candidates",
           "inline_is_legal", "loop_iter_type"]


@lru_cache(maxsize=256)
def perfect_tiles(extent: int, n: int, max_innermost_factor: int) -> tuple:
    """Every ordered ``n``-factorisation of ``extent`` with innermost <= max_innermost_factor."""
    def split(rest: int, parts: int):
        if parts == 1:
            yield (rest,)
            return
        for d in range(1, rest + 1):
            if rest % d == 0:
                for tail in split(rest // d, parts - 1):
                    yield (d,) + tail

    limit = max_innermost_factor if max_innermost_factor > 0 else extent
    return tuple(t for t in split(extent, n) if t[-1] <= limit)


def sample_perfect_tile(rng: random.Random, extent: int | None, n: int, max_innermost_factor: int,
                        decision=None) -> list[int]:
    if n < 1:
        raise ScheduleError(f"sample_perfect_tile: n must be >= 1, got {n}")
    if extent is None:  # a symbolic extent is tiled trivially (as TVM): [-1 (inferred), 1, ..., 1]
        return [-1] + [1] * (n - 1)
    if decision is not None:
        decision = [int(d) for d in decision]
        prod = 1
        for d in decision:
            prod *= d
        if len(decision) != n or prod != extent:
            raise ScheduleError(f"sample_perfect_tile: decision {decision} is not {n} factors whose "
                                f"product is the extent {extent}")
        return decision
    return list(rng.choice(perfect_tiles(extent, n, max_innermost_factor)))


def sample_categorical(rng: random.Random, candidates: list, probs: list, decision=None) -> int:
    if len(candidates) != len(probs) or not candidates:
        raise ScheduleError(f"sample_categorical: candidates ({len(candidates)}) and probs ({len(probs)}) "
                            "must be non-empty and of the same length")
    if decision is not None:
        if not 0 <= int(decision) < len(candidates):
            raise ScheduleError(f"sample_categorical: decision {decision} is not an index into "
                                f"{len(candidates)} candidates")
        return int(decision)
    return rng.choices(range(len(candidates)), weights=[float(p) for p in probs])[0]


def loop_iter_type(loop) -> str:
    """TVM's iteration type of a loop: "S" when the blocks right under it use its variable
    only in spatial bindings (or not at all), "R" when only in reduction ones, else "O"."""
    from ember.tir.functor import collect
    from ember.tir.stmt import IterVarType

    from .analysis import child_blocks

    kinds = set()
    for r in child_blocks(loop.body):
        for iv, value in zip(r.block.iter_vars, r.iter_values):
            if any(v is loop.loop_var for v in collect(value, lambda n: n is loop.loop_var)):
                kinds.add({IterVarType.DataPar: "S", IterVarType.CommReduce: "R"}.get(iv.iter_type, "O"))
    if "O" in kinds or kinds == {"S", "R"}:
        return "O"
    return "R" if kinds == {"R"} else "S"


def compute_location_candidates(func, realize, stop_after: int | None = None) -> list:
    """``(position, loop)`` pairs, outermost first, where ``position`` indexes the loops
    above the first consumer: the loops enclosing every consumer under which
    ``compute_at`` is legal, skipping (as TVM) unit loops, spatial loops after a reduction
    loop and reduction loops after the last spatial one.  With ``stop_after``, only
    positions up to it (a replayed decision needs no more)."""
    from . import _arith
    from .analysis import path_to
    from .compute_location import compute_at

    cons = consumers(func, realize)
    if not cons:
        return []
    loops = loops_above(func, cons[0])
    shared = [lp for lp in loops if all(path_to(lp, c) is not None for c in cons[1:])]
    kinds = [loop_iter_type(lp) for lp in shared]
    last_spatial = max((k for k, t in enumerate(kinds) if t == "S"), default=-1)
    found, seen_reduce = [], False
    for pos, (loop, kind) in enumerate(zip(shared, kinds)):
        if stop_after is not None and pos > stop_after:
            break
        if _arith.as_int(loop.extent) == 1:
            continue
        if kind == "S":
            if seen_reduce:
                break
        else:
            seen_reduce = True
            if pos > last_spatial:
                break
        try:
            compute_at(func, realize, loop)
        except (ScheduleError, ValueError):
            continue
        found.append((pos, loop))
    return found


def inline_is_legal(func, realize) -> bool:
    from .compute_inline import compute_inline

    try:
        compute_inline(func, realize)
    except ScheduleError:
        return False
    return True
