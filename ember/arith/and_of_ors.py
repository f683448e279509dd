"""Boolean expressions as an AND of ORs (TVM's ``ConvertBooleanToAndOfOrs`` extension).

``simplify_as_and_of_ors(expr, analyzer)`` distributes ``||`` over ``&&`` so that ``expr``
becomes a list of OR-chunks all of which must hold, then simplifies where the plain
rewrite rules cannot reach because the terms are not neighbours:

* inside one chunk, two terms whose OR simplifies to one term become that term
  (``i == 20 || j == 0 || i != 30`` → ``j == 0 || i != 30``);
* two chunks that differ in one term each, ``(A || b) && (A || c)``, become one chunk
  ``A || d`` when ``b && c`` simplifies to one term ``d`` (the later chunk keeps its
  order, the earlier one is dropped);
* a chunk that holds all the terms of another is dropped (it is implied).

The result keeps the chunks in the order they first appear.
"""

from __future__ import annotations

from ember.ir import And, IntImm, Or, PrimExpr, structural_equal

__all__ = ["simplify_as_and_of_ors"]


def _chunks(e) -> list[list]:
    """``e`` in conjunctive normal form: a list of OR-chunks (lists of terms)."""
    if isinstance(e, And):
        return _chunks(e.a) + _chunks(e.b)
    if isinstance(e, Or):
        left, right = _chunks(e.a), _chunks(e.b)
        return [a + b for a in left for b in right]
    return [[e]]


def _same(a, b) -> bool:
    return structural_equal(a, b, map_free_vars=False)


def _index(term, chunk) -> int:
    return next((n for n, t in enumerate(chunk) if _same(t, term)), -1)


def _dedup(chunk: list) -> list:
    out: list = []
    for t in chunk:
        if _index(t, out) < 0:
            out.append(t)
    return out


def _is_const(e, value: bool) -> bool:
    return isinstance(e, IntImm) and bool(e.value) == value


def _single(e) -> bool:
    return not isinstance(e, And | Or)


def _within(chunk: list, analyzer) -> list:
    """Merge pairs of terms of one OR-chunk whose OR is one term."""
    chunk = list(chunk)
    changed = True
    while changed:
        changed = False
        for i in range(len(chunk)):
            for j in range(i + 1, len(chunk)):
                merged = analyzer.simplify(Or(chunk[i], chunk[j]))
                if _single(merged):
                    chunk[j] = merged
                    del chunk[i]
                    changed = True
                    break
            if changed:
                break
    return chunk


def _across(chunks: list, analyzer) -> list:
    """Merge pairs of chunks that differ in one term each."""
    chunks = [list(c) for c in chunks]
    changed = True
    while changed:
        changed = False
        for i in range(len(chunks)):
            for j in range(i + 1, len(chunks)):
                a, b = chunks[i], chunks[j]
                only_a = [t for t in a if _index(t, b) < 0]
                only_b = [t for t in b if _index(t, a) < 0]
                if len(only_a) != 1 or len(only_b) != 1:
                    continue
                merged = analyzer.simplify(And(only_a[0], only_b[0]))
                if not _single(merged):
                    continue
                b[_index(only_b[0], b)] = merged
                del chunks[i]
                changed = True
                break
            if changed:
                break
    return chunks


def simplify_as_and_of_ors(expr: PrimExpr, analyzer) -> PrimExpr:
    """``expr`` (boolean) rewritten as an AND of ORs and simplified (module docstring)."""
    if not isinstance(expr, And | Or):
        return expr
    chunks = [_within(_dedup(c), analyzer) for c in _chunks(expr)]
    chunks = [c for c in chunks if not any(_is_const(t, True) for t in c)]
    chunks = [[t for t in c if not _is_const(t, False)] for c in chunks]
    chunks = _across(chunks, analyzer)
    kept: list = []
    for c in chunks:  # a chunk holding all the terms of another one is implied by it
        if any(all(_index(t, c) >= 0 for t in other) for other in kept):
            continue
        kept = [o for o in kept if not all(_index(t, o) >= 0 for t in c)]
        kept.append(c)
    if any(not c for c in kept):
        return IntImm("bool", 0)
    if not kept:
        return IntImm("bool", 1)
    out = None
    for c in kept:
        clause = c[0]
        for t in c[1:]:
            clause = Or(clause, t)
        out = clause if out is None else And(out, clause)
    return out
