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
           "inline_is_legal"]


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
    if extent is None:
        raise ScheduleError("sample_perfect_tile needs a loop with a constant extent")
    if n < 1:
        raise ScheduleError(f"sample_perfect_tile: n must be >= 1, got {n}")
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


def compute_location_candidates(func, realize, stop_after: int | None = None) -> list:
    """Loops (outermost first) of the first consumer under which ``compute_at`` is legal;
    with ``stop_after``, only the first that many (a replayed decision needs no more)."""
    from .compute_location import compute_at

    found = []
    cons = consumers(func, realize)
    if not cons:
        return found
    for loop in loops_above(func, cons[0]):
        if stop_after is not None and len(found) >= stop_after:
            break
        try:
            compute_at(func, realize, loop)
        except (ScheduleError, ValueError):
            continue
        found.append(loop)
    return found


def inline_is_legal(func, realize) -> bool:
    from .compute_inline import compute_inline

    try:
        compute_inline(func, realize)
    except ScheduleError:
        return False
    return True
