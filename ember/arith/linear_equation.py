"""``detect_linear_equation``: an expression as ``c_0*v_0 + … + c_k*v_k + base``.

Given variables ``v_i``, it returns ``[c_0, …, c_k, base]`` where the coefficients and
the base do not mention any ``v_i`` (they may be symbolic, e.g. ``i*n + j`` over
``[i, j]`` gives ``[n, 1, 0]``), or ``[]`` when the expression is not linear in them.
"""

from __future__ import annotations

import enum

from ember.ir import IntImm, Mul, Node, PrimExpr, Var, as_expr, fields_of

from .analyzer import Analyzer
from .simplifier import Simplifier

__all__ = ["detect_linear_equation", "ProofStrength"]


class ProofStrength(enum.IntEnum):
    """Accepted by ``Analyzer.can_prove`` for TVM compatibility."""

    DEFAULT = 0
    SYMBOLIC_BOUND = 1


def _mentions(e, wanted: set) -> bool:
    if isinstance(e, Var):
        return id(e) in wanted
    if isinstance(e, Node):
        for name in fields_of(type(e)):
            v = getattr(e, name)
            for x in v if isinstance(v, tuple) else (v,):
                if isinstance(x, Node) and _mentions(x, wanted):
                    return True
    return False


def detect_linear_equation(expr, var_list) -> list:
    """Coefficients of ``expr`` in ``var_list`` followed by the rest, or [] if not linear."""
    expr = as_expr(expr)
    ana = Analyzer()
    e = ana.simplify(expr)
    if not (e.dtype.is_integer and e.dtype.lanes == 1):
        return []
    s = Simplifier(ana)
    lin = s.linear(e)
    wanted = {id(v) for v in var_list}
    dtype = e.dtype
    coeffs: dict[int, PrimExpr] = {id(v): IntImm(dtype, 0) for v in var_list}
    base: PrimExpr | None = None  # the terms first, the constant last (``y + 10``, as TVM)
    for atom, c in lin.terms.values():
        term = atom if c == 1 else Mul(atom, IntImm(dtype, c))
        if not _mentions(atom, wanted):
            base = term if base is None else base + term
            continue
        if isinstance(atom, Var):
            coeffs[id(atom)] = coeffs[id(atom)] + IntImm(dtype, c)
            continue
        if type(atom) is Mul:
            for var_side, other in ((atom.a, atom.b), (atom.b, atom.a)):
                if isinstance(var_side, Var) and id(var_side) in wanted and not _mentions(other, wanted):
                    coeffs[id(var_side)] = coeffs[id(var_side)] + other * c
                    break
            else:
                return []
            continue
        return []
    if base is None:
        base = IntImm(dtype, lin.const)
    elif lin.const:
        base = base + IntImm(dtype, lin.const)
    return [ana.simplify(coeffs[id(v)]) for v in var_list] + [ana.simplify(base)]
