"""``inverse_affine_iter_map``: the input iterators as expressions of the outputs.

Given the sums ``detect_iter_map`` found (``outputs[i] == indices[i]``), each sum is read as
a mixed-radix number: its split with scale ``s`` and extent ``e`` has the value
``(outputs[i] - base) // s % e``.  A split contributes ``value * lower_factor`` to its
mark; once every split of a mark has contributed, the mark's value is known — the value
of an input iterator, or of a fused sum that is taken apart the same way.  Marks are
visited after all their users (a fused mark may be split in several places).
"""

from __future__ import annotations

from ember.ir import Add, FloorDiv, FloorMod, IntImm, Mul, PrimExpr, Sub, Var

from .analyzer import Analyzer
from .iter_map_nodes import IterMark, IterSplitExpr, IterSumExpr

__all__ = ["inverse_affine_iter_map"]


def inverse_affine_iter_map(iter_map, outputs) -> dict:
    """``{input Var: expression of outputs}`` for the bijective ``iter_map``."""
    iter_map, outputs = list(iter_map), list(outputs)
    if len(iter_map) != len(outputs):
        raise ValueError(f"inverse_affine_iter_map: {len(iter_map)} indices but {len(outputs)} outputs")
    users: dict[int, int] = {}
    marks: dict[int, IterMark] = {}

    def count(mark: IterMark) -> None:
        users[id(mark)] = users.get(id(mark), 0) + 1
        if id(mark) in marks:
            return
        marks[id(mark)] = mark
        if isinstance(mark.source, IterSumExpr):
            for arg in mark.source.args:
                count(arg.source)

    for s in iter_map:
        for arg in _sum_of(s).args:
            count(arg.source)
    values: dict[int, PrimExpr] = {}
    ready: list[IterMark] = []

    def contribute(s: IterSumExpr, value: PrimExpr) -> None:
        value = value if _is_zero(s.base) else Sub(value, s.base)
        ordered = sorted(s.args, key=_scale_key)
        for arg in ordered:
            part = value
            if not _is_one(arg.scale):
                part = FloorDiv(part, arg.scale)
            if arg is not ordered[-1]:  # the leading digit needs no wrap: the sum is in range
                part = FloorMod(part, arg.extent)
            if not _is_one(arg.lower_factor):
                part = Mul(part, arg.lower_factor)
            key = id(arg.source)
            values[key] = part if key not in values else Add(values[key], part)
            users[key] -= 1
            if users[key] == 0:
                ready.append(arg.source)

    for s, out in zip(iter_map, outputs):
        s = _sum_of(s)
        if s.args:
            contribute(s, out)
    ana = Analyzer()
    result = {}
    while ready:
        mark = ready.pop()
        value = values[id(mark)]
        if isinstance(mark.source, IterSumExpr):
            contribute(mark.source, value)
        elif isinstance(mark.source, Var):
            result[mark.source] = ana.simplify(value)
        elif isinstance(mark.source, Sub) and isinstance(mark.source.a, Var):  # var - min
            result[mark.source.a] = ana.simplify(Add(value, mark.source.b))
        else:
            raise ValueError(f"inverse_affine_iter_map: cannot invert the iterator {mark.source!r}")
    return result


def _sum_of(e) -> IterSumExpr:
    if isinstance(e, IterSumExpr):
        return e
    if isinstance(e, IterSplitExpr):
        return IterSumExpr((e,), IntImm(e.dtype, 0))
    raise TypeError(f"inverse_affine_iter_map: expected IterSumExpr, got {type(e).__name__}")


def _scale_key(arg: IterSplitExpr):
    return arg.scale.value if type(arg.scale) is IntImm else 0


def _is_zero(e) -> bool:
    return type(e) is IntImm and e.value == 0


def _is_one(e) -> bool:
    return type(e) is IntImm and e.value == 1
