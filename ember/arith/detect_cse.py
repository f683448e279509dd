"""``detect_common_subexpr``: the subexpressions computed at least ``threshold`` times.

Every non-leaf subexpression of ``expr`` (not a variable or a constant) is counted once
per occurrence, occurrences compared structurally; the answer maps the first occurrence
(in left-to-right order) of each one counted ``threshold`` times or more to its count —
the candidates a common-subexpression elimination would bind to a variable.
"""

from __future__ import annotations

from ember.ir import FloatImm, IntImm, Node, PrimExpr, Var, fields_of, structural_equal, structural_hash

__all__ = ["detect_common_subexpr"]


def detect_common_subexpr(expr: PrimExpr, threshold: int) -> dict:
    """``{subexpression: count}`` for the subexpressions occurring ``threshold`` times or more."""
    buckets: dict[int, list] = {}  # structural hash -> [[first occurrence, count], ...]
    stack = [expr]
    while stack:
        e = stack.pop()
        if not isinstance(e, PrimExpr) or isinstance(e, Var | IntImm | FloatImm):
            continue
        entries = buckets.setdefault(structural_hash(e), [])
        for entry in entries:
            if structural_equal(entry[0], e):
                entry[1] += 1
                break
        else:
            entries.append([e, 1])
        children = []
        for name in fields_of(type(e)):
            v = getattr(e, name)
            if isinstance(v, Node):
                children.append(v)
            elif isinstance(v, tuple):
                children.extend(x for x in v if isinstance(x, Node))
        stack.extend(reversed(children))  # pre-order, left to right
    return {e: n for entries in buckets.values() for e, n in entries if n >= threshold}
