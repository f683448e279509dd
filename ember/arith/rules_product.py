"""Comparisons of a product with a sum of its factors (``Extension.ComparisonOfProductAndSum``).

A comparison ``d <= 0`` with ``d = a*x*y + b*x + c*y + k`` is not linear, so interval bounds
of its terms lose the correlation between ``x*y`` and ``x``, ``y``.  Completing the product,
``a*d == (a*x + c)*(a*y + b) - b*c + a*k``, leaves one product of two independent linear
factors whose interval bound is exact at the corners: ``x*y < (x + y)*2048`` is proven
for ``0 < x < 2048, 0 < y``.  Off unless the analyzer enables the extension, as in TVM.
"""

from __future__ import annotations

import math

from ember.ir import EQ, NE, IntImm, Mul, PrimExpr
from ember.runtime.dtype import DataType

from .extension import Extension
from .rules_logic import le0_forms

__all__ = ["compare_product_sum"]

_BOOL = DataType("bool")


def _mul(a, b):
    if a == 0 or b == 0:
        return 0
    return a * b


def _affine_bound(s, atom, scale: int, offset: int) -> tuple:
    lo, hi = s.bound(atom)
    lo, hi = _mul(scale, lo) + offset, _mul(scale, hi) + offset
    return (lo, hi) if lo <= hi else (hi, lo)


def compare_product_sum(s, e) -> PrimExpr | None:
    if not (s.ana.enabled_extensions & Extension.ComparisonOfProductAndSum) or type(e) in (EQ, NE):
        return None
    forms = le0_forms(s, e)
    if not forms or len(forms) != 1:
        return None
    d = forms[0]
    products = [(k, atom, c) for k, (atom, c) in d.terms.items()
                if type(atom) is Mul and type(atom.a) is not IntImm and type(atom.b) is not IntImm]
    if len(products) != 1:
        return None
    key, prod, a = products[0]
    x, y = prod.a, prod.b
    b = c = 0
    for k, (atom, coeff) in d.terms.items():
        if k == key:
            continue
        if s.same(atom, x):
            b = coeff
        elif s.same(atom, y):
            c = coeff
        else:
            return None
    # a*d == (a*x + c)*(a*y + b) - b*c + a*k
    fx, fy = _affine_bound(s, x, a, c), _affine_bound(s, y, a, b)
    corners = [_mul(p, q) for p in fx for q in fy]
    if any(isinstance(v, float) and math.isnan(v) for v in corners):
        return None
    lo, hi = min(corners), max(corners)
    limit = b * c - a * d.const  # a*d <= 0  is  P <= limit (a > 0), P >= limit (a < 0)
    if a > 0:
        if hi <= limit:
            return IntImm(_BOOL, 1)
        if lo > limit:
            return IntImm(_BOOL, 0)
    else:
        if lo >= limit:
            return IntImm(_BOOL, 1)
        if hi < limit:
            return IntImm(_BOOL, 0)
    return None
