"""What the rewrite-rule tests share: the variables x, y, z, ``rewrite_under``
(``rewrite_simplify`` under an optional precondition) and the two checks every rule gets:
the exact result (TVM's spelling) and the value at sample points."""

from __future__ import annotations

from ember import tir
from ember.arith import Analyzer, evaluate
from ember.ir import structural_equal

X, Y, Z = tir.Var("x"), tir.Var("y"), tir.Var("z")


def rewrite_under(before, cond=None):
    """``before`` rewrite-simplified by a fresh analyzer, under ``cond`` when given."""
    ana = Analyzer()
    if cond is None:
        return ana.rewrite_simplify(before)
    with ana.constraint_scope(cond):
        return ana.rewrite_simplify(before)


def assert_rewrites_to(before, expected, cond=None) -> None:
    """The rewrite of ``before`` is ``expected`` (a Python int or bool: that constant)."""
    after = rewrite_under(before, cond)
    expected = tir.const(expected) if isinstance(expected, bool | int) else expected
    assert structural_equal(after, expected), f"{before!r} -> {after!r}, want {expected!r}"


def assert_keeps_value(before, after, env: dict, cond=None) -> None:
    """``after`` evaluates like ``before`` at ``env`` (conditions by their truth), unless
    ``cond`` is false there or ``before`` divides by zero there."""
    if cond is not None and not evaluate(cond, env):
        return
    try:
        want = evaluate(before, env)
    except ZeroDivisionError:
        return
    got = evaluate(after, env)
    assert (bool(got) == bool(want)) if before.dtype.is_bool else got == want, (before, after, env)
