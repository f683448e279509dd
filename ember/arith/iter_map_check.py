"""The checks of ``detect_iter_map`` once every index is a sum of splits.

The splits of each mark must not overlap; for a bijective map they must cover the mark
exactly and every input iterator must be used; for a surjective one gaps are allowed
below a split but the splits must divide the extent, and a padded mark must not reach
the outputs whole (its padding would be visible).  A failed check raises
``DetectionFailed``.
"""

from __future__ import annotations

from ember.ir import IntImm, Mul, PrimExpr, promote

from .iter_map_nodes import IterMark, IterSplitExpr, IterSumExpr
from .iter_map_rewrite import DetectionFailed, IterMapLevel, IterMapRewriter, is_const, mark_name

__all__ = ["check_mapping"]


def check_mapping(rw: IterMapRewriter, sums: list, level: IterMapLevel) -> None:
    """Check the splits of every mark the ``sums`` use (inner marks of fused ones too)."""
    uses: dict[int, tuple] = {}

    def visit(split: IterSplitExpr):
        mark = split.source
        entry = uses.get(id(mark))
        if entry is None:
            entry = (mark, [])
            uses[id(mark)] = entry
            if isinstance(mark.source, IterSumExpr):
                for inner in mark.source.args:
                    visit(inner)
        entry[1].append(split)

    for s in sums:
        for a in s.args:
            visit(a)
    for mark, splits in uses.values():
        _check_mark(rw, mark, splits, level)
    _check_padding(rw, sums, uses)
    if level == IterMapLevel.Bijective:
        for var, mark in rw.input_marks.items():
            if id(mark) not in uses and not is_const(mark.extent, 1):  # unit loops: always 0
                raise DetectionFailed(f"the iterator {var.name} is not used by any index; the map is not bijective")


def _check_padding(rw: IterMapRewriter, sums: list, uses: dict) -> None:
    """A padded mark whose every digit reaches an output makes the padding visible:
    some combinations of output values are never produced, so the map is not
    surjective.  A digit reaches an output when it is an output's split or a part of a
    mark whose digits all reach outputs."""
    padded = {id(m) for m in rw.padded.values()}
    if not padded:
        return
    direct = {id(a) for s in sums for a in s.args}
    parent: dict[int, IterMark] = {}  # split id -> the mark whose source sum holds it
    for mark, _ in uses.values():
        if isinstance(mark.source, IterSumExpr):
            for a in mark.source.args:
                parent[id(a)] = mark
    memo: dict[int, bool] = {}

    def full(mark: IterMark) -> bool:
        if id(mark) not in memo:
            memo[id(mark)] = False
            splits = uses[id(mark)][1]
            covered = IntImm(mark.extent.dtype, 1)
            for a in sorted(splits, key=lambda a: a.lower_factor.value
                            if type(a.lower_factor) is IntImm else 0):
                if not rw.eq(a.lower_factor, covered):
                    break
                covered = rw.ana.simplify(Mul(*promote(a.lower_factor, a.extent)))
            complete = rw.eq(covered, mark.extent)
            memo[id(mark)] = complete and all(
                id(a) in direct or (id(a) in parent and full(parent[id(a)])) for a in splits
            )
        return memo[id(mark)]

    for mark, _ in uses.values():
        if id(mark) in padded and full(mark):
            raise DetectionFailed(f"the padded iterator {mark_name(mark)} is used whole; the map is not surjective")


def _check_mark(rw: IterMapRewriter, mark: IterMark, splits: list, level: IterMapLevel) -> None:
    """The ``splits`` of ``mark``, lowest factor first, must not overlap and must cover it
    (bijective) or divide it (surjective)."""
    expected = IntImm(mark.extent.dtype, 1)
    remaining = list(splits)
    while remaining:
        hits = [a for a in remaining if rw.eq(a.lower_factor, expected)]
        if len(hits) > 1:
            raise DetectionFailed(f"the iterator {mark_name(mark)} is used twice at the same position; indices overlap")
        if not hits:
            if level == IterMapLevel.Bijective:
                raise DetectionFailed(f"the splits of {mark_name(mark)} leave a gap at factor {expected!r}; "
                                      "the map is not bijective")
            hit = _next_split(rw, remaining, expected, mark)
        else:
            hit = hits[0]
        remaining.remove(hit)
        expected = rw.ana.simplify(Mul(*promote(hit.lower_factor, hit.extent)))
    if rw.eq(expected, mark.extent):
        return
    if level == IterMapLevel.Bijective:
        raise DetectionFailed(f"the splits of {mark_name(mark)} cover {expected!r} of its extent {mark.extent!r}; "
                              "the map is not bijective")
    if rw.divide(mark.extent, expected) is None:
        raise DetectionFailed(f"the splits of {mark_name(mark)} do not divide its extent {mark.extent!r}")


def _next_split(rw: IterMapRewriter, remaining: list, expected: PrimExpr, mark: IterMark) -> IterSplitExpr:
    """The split with the smallest lower factor above ``expected`` (a gap is allowed)."""
    cands = [a for a in remaining if type(a.lower_factor) is IntImm]
    if type(expected) is not IntImm or len(cands) != len(remaining):
        raise DetectionFailed(f"cannot order the splits of {mark_name(mark)} with symbolic factors")
    hit = min(cands, key=lambda a: a.lower_factor.value)
    if hit.lower_factor.value < expected.value or hit.lower_factor.value % expected.value:
        raise DetectionFailed(f"the splits of {mark_name(mark)} overlap; indices are not independent")
    return hit

