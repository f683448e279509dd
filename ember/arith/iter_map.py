"""Affine iterator-map detection: ``detect_iter_map``, ``normalize_iter_map_to_expr``,
``iter_map_simplify``.

Given index expressions over loop variables with known ranges, ``detect_iter_map``
rewrites each index as an ``IterSumExpr`` of splits of iterators (fusing sums such as
``i*8 + j`` into one new mark when their scales form a chain), then checks that the
splits of every iterator do not overlap and, for ``check_level="bijective"``, that they
cover every input exactly.  On failure ``.indices`` is empty and ``.errors`` says why.
Schedule primitives (split, fuse, compute_at, blockize) use this to prove that index
maps are bijective or surjective.

The work is split by step: ``iter_map_rewrite`` (indices to sums of splits, fusion,
division and padding), ``iter_map_predicate`` (bounds from the predicate),
``iter_map_check`` (overlaps, coverage, padding) and ``iter_map_to_expr`` (back to
expressions).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ember.ir import IntImm, PrimExpr, Range, Var, as_expr

from .analyzer import Analyzer
from .iter_map_check import check_mapping
from .iter_map_predicate import apply_predicate, check_constraints_used
from .iter_map_rewrite import DetectionFailed, IterMapLevel, IterMapRewriter, is_const
from .iter_map_to_expr import normalize_iter_map_to_expr

__all__ = [
    "IterMapLevel", "IterMapResult", "detect_iter_map", "normalize_iter_map_to_expr",
    "iter_map_simplify",
]


_LEVELS = {"bijective": IterMapLevel.Bijective, "surjective": IterMapLevel.Surjective,
           "no_check": IterMapLevel.NoCheck, "nocheck": IterMapLevel.NoCheck}


@dataclass
class IterMapResult:
    """``indices``: one IterSumExpr per input index (empty on failure); ``errors``: why not."""

    indices: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    padding_predicate: PrimExpr = field(default_factory=lambda: IntImm(_bool(), 0))

    def __bool__(self) -> bool:
        return not self.errors


def _bool():
    from ember.runtime.dtype import DataType

    return DataType("bool")


def _level(check_level) -> IterMapLevel:
    if isinstance(check_level, IterMapLevel):
        return check_level
    if isinstance(check_level, int):
        return IterMapLevel(check_level)
    found = _LEVELS.get(str(check_level).lower())
    if found is None:
        raise ValueError(
            f"detect_iter_map: check_level must be one of 'bijective', 'surjective', 'no_check', "
            f"got {check_level!r}"
        )
    return found


def detect_iter_map(indices, input_iters: dict, predicate=True, check_level="surjective",
                    simplify_trivial_iterators: bool = True) -> IterMapResult:
    """Detect ``indices`` (PrimExprs over ``input_iters``: Var → Range) as affine iterator maps."""
    level = _level(check_level)
    for var, rng in input_iters.items():
        if not isinstance(var, Var) or not isinstance(rng, Range):
            raise TypeError(
                f"detect_iter_map: input_iters must map Var to Range, got "
                f"{type(var).__name__} → {type(rng).__name__}"
            )
    indices = [as_expr(e) for e in indices]
    first_error = None
    # as written first (keeps fused sums whole), then simplified (cancels terms, folds
    # divisions the bounds decide)
    for presimplify in (False, True):
        rw = IterMapRewriter(input_iters, simplify_trivial_iterators, level)
        try:
            apply_predicate(rw, as_expr(predicate))
            todo = [rw.ana.simplify(e) for e in indices] if presimplify else indices
            sums = [rw.rewrite_index(e) for e in todo]
            check_constraints_used(rw)
            if level != IterMapLevel.NoCheck:
                check_mapping(rw, sums, level)
        except DetectionFailed as err:
            first_error = first_error or str(err)
            continue
        return IterMapResult(sums, [])
    return IterMapResult([], [first_error])


def iter_map_simplify(indices, input_iters: dict, predicate=True, check_level="surjective",
                      simplify_trivial_iterators: bool = True) -> list:
    """Simplify ``indices`` through iterator-map detection; unchanged when detection fails."""
    result = detect_iter_map(indices, input_iters, predicate, check_level, simplify_trivial_iterators)
    if result.errors:
        return list(indices)
    ana = Analyzer()
    for var, rng in input_iters.items():
        if simplify_trivial_iterators or not is_const(rng.extent, 1):  # else keep unit loops
            ana.bind(var, rng)
    return [ana.simplify(normalize_iter_map_to_expr(s)) for s in result.indices]
