"""Test helpers, under TVM's ``tvm.testing`` names: numeric comparison for any array type,
fixtures that work in test classes, target parametrisation, device-aware skips and
before/after transform tests."""

from .asserts import assert_allclose, assert_prim_expr_equal, to_numpy
from .compare import CompareBeforeAfter
from .devices import enabled_targets, uses_gpu
from .fixtures import (
    exclude_targets, fixture, known_failing_targets, parameter, parameters, parametrize_targets,
)
from .marks import *  # noqa: F403  (the requires_* decorators)
from .marks import __all__ as _marks_all
from .utils import check_numerical_grads, main

__all__ = [
    "CompareBeforeAfter", "assert_allclose", "check_numerical_grads", "assert_prim_expr_equal", "enabled_targets",
    "exclude_targets", "fixture", "known_failing_targets", "main", "parameter", "parameters",
    "parametrize_targets", "to_numpy", "uses_gpu", "check_bool_expr_is_true",
    "check_int_constraints_trans_consistency", *_marks_all,
]

_LAZY = {"check_bool_expr_is_true", "check_int_constraints_trans_consistency"}


def __getattr__(name: str):
    # the integer-constraint checks need the compiler's IR; importing ember.testing must not
    # (the runtime is usable without the compiler packages)
    if name in _LAZY:
        from . import int_constraints

        return getattr(int_constraints, name)
    raise AttributeError(f"module 'ember.testing' has no attribute {name!r}")
