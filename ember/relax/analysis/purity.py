"""``contains_impure_call``: whether evaluating an expression may have a side effect.

Nested functions are not entered (defining one calls nothing), and a call to the
function's own name (``own_name``, for recursion) is taken as pure: its purity is the
very question being asked.
"""

from __future__ import annotations

from ..expr import Call, Expr, Function
from ..expr_functor import ExprVisitor
from .vars import is_pure_call

__all__ = ["contains_impure_call"]


def contains_impure_call(expr: Expr, own_name=None) -> bool:
    """True when ``expr`` (a function's body, or the function) makes an impure call."""
    body = expr.body if isinstance(expr, Function) else expr
    own = getattr(own_name, "name_hint", own_name)
    found = []

    class Finder(ExprVisitor):
        def visit_function_(self, func):  # a nested function is defined, not called
            return None

        def visit_call_(self, call: Call):
            callee = getattr(call.op, "name_hint", None)
            if own is None or callee != own:
                if not is_pure_call(call, None, unknown=False):
                    found.append(call)
            super().visit_call_(call)

    Finder().visit_expr(body)
    return bool(found)
