"""TVM's ``runtime.convert`` and ``runtime.const``: Python values as IR values.

The IR layer is imported on first call, so ``import ember.runtime`` stays free of it.
"""

from __future__ import annotations

__all__ = ["convert", "const"]


def convert(value, span=None):
    """Numbers and bools → constants, lists and tuples → tuples of converted items, dicts →
    dicts of converted values; strings and IR nodes are returned as they are."""
    from ember.ir.expr import as_expr

    if isinstance(value, list | tuple):
        return tuple(convert(v) for v in value)
    if isinstance(value, dict):
        return {k: convert(v) for k, v in value.items()}
    if isinstance(value, bool | int | float):
        return as_expr(value)
    return value


def const(value, dtype=None, span=None):
    """A scalar constant (``tir.const``)."""
    from ember.ir.expr import const as make_const

    return make_const(value, dtype)
