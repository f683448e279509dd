"""ONNX Einsum → ``relax.einsum``, with ``...`` (ellipsis) expanded here into explicit
letters from the operands' ranks (right-aligned, as numpy broadcasts them) and the
implicit output (no ``->``) spelled out as numpy defines it: ellipsis dims first, then
the letters used exactly once, in alphabetical order."""

from __future__ import annotations

import string

from ember.relax import op as R

from .common import ONNXImportError, ndim_of
from .registry import converter


def expand_ellipsis(equation: str, ranks: list[int]) -> str:
    """``equation`` with every ``...`` replaced by explicit letters and an explicit output."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise ONNXImportError(f"Einsum: equation {equation!r} names {len(terms)} operands, got {len(ranks)}")
    used = set(eq) - set(".,->")
    spare = [c for c in string.ascii_letters if c not in used]
    widths = []
    for term, rank in zip(terms, ranks):
        named = len(term.replace("...", ""))
        if "..." in term:
            widths.append(rank - named)
        elif named != rank:
            raise ONNXImportError(f"Einsum: term {term!r} has {named} letters for an operand of rank {rank}")
    width = max(widths, default=0)
    if width < 0:
        raise ONNXImportError(f"Einsum: equation {equation!r} has more letters than its operands have dims")
    ell = "".join(spare[:width])
    out_terms = [t.replace("...", ell[width - (r - len(t.replace('...', ''))):]) if "..." in t else t
                 for t, r in zip(terms, ranks)]
    if arrow:
        out = rhs.replace("...", ell)
    else:
        letters = "".join(t.replace("...", "") for t in terms)
        out = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return ",".join(out_terms) + "->" + out


@converter("Einsum", since=12)
def einsum(ctx, node, inputs, attrs):
    ranks = [ndim_of(x) for x in inputs]
    if any(r < 0 for r in ranks):
        raise ONNXImportError("Einsum: operand ranks must be known at import")
    return R.einsum(list(inputs), expand_ellipsis(attrs["equation"], ranks))
