"""TVM's FFI entry-point names for the arith analyses ember has, for code that calls them.

TVM exposes some analyses only as ``tvm.arith._ffi_api.<Name>``; here each such name is
the Python function that does the work.
"""

from __future__ import annotations

from .narrow_predicate import narrow_predicate_expression as NarrowPredicateExpression  # noqa: N812

from .solve_linear_inequalities import (  # noqa: E402
    solve_inequalities_as_condition as _solve_as_condition,
)


def SolveInequalitiesAsCondition(variables, ranges, relations):  # noqa: N802 - TVM's name
    """TVM's ``SolveInequalitiesAsCondition(variables, ranges, relations)``."""
    return _solve_as_condition(variables, ranges, relations)


def DomainTouched(stmt, buffer, consider_loads, consider_stores):  # noqa: N802 - TVM's name
    """TVM's ``DomainTouched``: per-dimension ranges of ``buffer`` that ``stmt`` touches."""
    from .domain_touched import domain_touched

    return domain_touched(stmt, buffer, consider_loads, consider_stores)


__all__ = ["NarrowPredicateExpression", "SolveInequalitiesAsCondition", "DomainTouched"]
