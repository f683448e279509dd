"""Sums of floor divisions and remainders by 2 of one value at different offsets.

With ``D = u // 2`` and ``M = u % 2`` (M is 0 or 1):
``(u + k) // 2 == D + k // 2 + (k % 2) * M`` and ``(u + k) % 2`` is ``M`` for even k and
``1 - M`` for odd k.  When a sum holds two or more such terms of the same ``u``, they are
rewritten over D and M, where they often cancel: ``x % 2 + (x + 1) % 2`` → 1,
``(x + 1) // 2 - x // 2`` → ``x % 2``; ``D + M`` is written back as ``(u + 1) // 2``.
The result is taken only when it is shorter.  A single ``(x + 1) % 2`` is left alone:
rewriting it to ``1 - x % 2`` would put a negative coefficient on an iterator.
"""

from __future__ import annotations

from ember.ir import Add, FloorDiv, FloorMod, IntImm, PrimExpr

from .linear import Linear, is_int_scalar

__all__ = ["mod_two_offsets"]


def _offset_form(s, atom):
    """``(u, k)`` for ``(u + k) // 2`` or ``(u + k) % 2`` with u's linear form (no constant)."""
    if type(atom) not in (FloorDiv, FloorMod) or type(atom.b) is not IntImm or atom.b.value != 2:
        return None
    lin = s.linear(atom.a)
    if not lin.terms:
        return None
    return Linear(lin.terms, 0), lin.const


def mod_two_offsets(s, e) -> PrimExpr | None:
    if not is_int_scalar(e.dtype):
        return None
    lin = s.linear(e)
    groups: dict[tuple, list] = {}
    for key, (atom, coeff) in lin.terms.items():
        form = _offset_form(s, atom)
        if form is not None:
            u, k = form
            ident = tuple(sorted((kk, c) for kk, (_, c) in u.terms.items()))
            groups.setdefault(ident, []).append((key, atom, coeff, u, k))
    from .rules_arith import _emit

    for members in groups.values():
        if len(members) < 2:
            continue
        u = members[0][3]
        u_expr = _emit(s, u, e.dtype)
        two = IntImm(e.dtype, 2)
        d_lin = s.linear(s.visit(FloorDiv(u_expr, two)))
        m_lin = s.linear(s.visit(FloorMod(u_expr, two)))
        keys = {m[0] for m in members}
        out = Linear({k: t for k, t in lin.terms.items() if k not in keys}, lin.const)
        d_coeff = m_coeff = 0
        for _, atom, coeff, _, k in members:
            if type(atom) is FloorDiv:
                out = out.plus(Linear({}, coeff * (k // 2)))
                d_coeff += coeff
                m_coeff += coeff * (k % 2)
            elif k % 2:
                out = out.plus(Linear({}, coeff))
                m_coeff -= coeff
            else:
                m_coeff += coeff
        if d_coeff and d_coeff == m_coeff:  # D + M == (u + 1) // 2
            up = s.visit(FloorDiv(Add(u_expr, IntImm(e.dtype, 1)), two))
            out = out.plus(s.linear(up), d_coeff)
        else:
            out = out.plus(d_lin, d_coeff).plus(m_lin, m_coeff)
        if out.size() < lin.size():
            return _emit(s, out, e.dtype)
    return None
