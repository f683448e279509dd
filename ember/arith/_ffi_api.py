"""TVM's FFI entry-point names for the arith analyses ember has, for code that calls them.

TVM exposes some analyses only as ``tvm.arith._ffi_api.<Name>``; here each such name is
the Python function that does the work.
"""

from __future__ import annotations

from .narrow_predicate import narrow_predicate_expression as NarrowPredicateExpression  # noqa: N812

__all__ = ["NarrowPredicateExpression"]
