"""Analyzer API: bounds, modular sets, bind/update, constraint scopes, proofs, errors."""

from __future__ import annotations

import pytest

from ember import tir
from ember.arith import Analyzer, ConstIntBound, ModularSet
from ember.ir import DataType, Range

x, y, n = tir.Var("x"), tir.Var("y"), tir.Var("n")
POS, NEG = ConstIntBound.POS_INF, ConstIntBound.NEG_INF


def _bound(e, ana=None):
    b = (ana or Analyzer()).const_int_bound(e)
    return (b.min_value, b.max_value)


# -- const_int_bound ------------------------------------------------------------------
def test_bound_of_vars_follows_dtype():
    assert _bound(x) == (-(2**31), 2**31 - 1)
    assert _bound(tir.Var("u", "uint8")) == (0, 255)
    assert _bound(tir.SizeVar("s", "int32")) == (0, POS)  # a size: non-negative, unbounded (TVM)
    assert _bound(tir.Var("w", "int64")) == (NEG, POS)
    assert _bound(x < y) == (0, 1)


def test_bound_arithmetic():
    ana = Analyzer()
    ana.bind(x, Range(0, 8))
    ana.bind(y, Range(-4, 9))  # [-4, 4]
    assert _bound(x + y, ana) == (-4, 11)
    assert _bound(x - y, ana) == (-4, 11)
    assert _bound(x * y, ana) == (-28, 28)
    assert _bound(x // 2, ana) == (0, 3)
    assert _bound(y // 2, ana) == (-2, 2)
    assert _bound(y % 3, ana) == (0, 2)
    assert _bound(x % 3, ana) == (0, 2)
    assert _bound(x % 16, ana) == (0, 7)
    assert _bound(tir.truncmod(y, 3), ana) == (-2, 2)
    assert _bound(tir.truncdiv(y, 2), ana) == (-2, 2)
    assert _bound(tir.min(x, y), ana) == (-4, 4)
    assert _bound(tir.max(x, y), ana) == (0, 7)
    assert _bound(tir.Select(x < y, x, y + 10), ana) == (0, 14)
    assert _bound(x // y, ana) == (-7, 7)


def test_bound_of_cast_and_infinite_ends():
    ana = Analyzer()
    ana.bind(x, Range(0, 8))
    w = tir.Var("w", "int64")
    assert _bound(tir.Cast(DataType("int64"), x), ana) == (0, 7)
    assert _bound(w + 1, ana) == (NEG, POS)
    assert _bound(tir.Cast(x.dtype, tir.Var("f", "float32")), ana) == (-(2**31), 2**31 - 1)


def test_bound_is_public_dataclass():
    b = Analyzer().const_int_bound(tir.const(5))
    assert b == ConstIntBound(5, 5) and b.is_const()


# -- modular_set --------------------------------------------------------------------------
def test_modular_set():
    ana = Analyzer()
    assert ana.modular_set(x * 8 + 4) == ModularSet(8, 4)
    assert ana.modular_set(x * 6 + y * 4) == ModularSet(2, 0)
    assert ana.modular_set((x * 8 + 4) // 4) == ModularSet(2, 1)
    assert ana.modular_set((x * 8 + 5) % 4) == ModularSet(0, 1)
    assert ana.modular_set(tir.const(7)) == ModularSet(0, 7)
    assert ana.modular_set(x) == ModularSet(1, 0)
    assert ana.modular_set(tir.min(x * 4, y * 8 + 4)) == ModularSet(4, 0)


def test_update_modular_set_is_used():
    ana = Analyzer()
    ana.update(x, ModularSet(4, 1))
    assert ana.modular_set(x * 2) == ModularSet(8, 2)
    assert ana.can_prove(x % 4 == 1)
    assert ana.simplify(x % 2).value == 1


# -- bind / update ------------------------------------------------------------------------
def test_bind_expression_substitutes():
    ana = Analyzer()
    ana.bind(x, y + 1)
    r = ana.simplify(x - y)
    assert r.value == 1


def test_bind_extent_one_range_substitutes_min():
    ana = Analyzer()
    ana.bind(x, Range(n, 1))
    assert ana.simplify(x - n).value == 0


def test_update_const_int_bound():
    ana = Analyzer()
    ana.update(x, ConstIntBound(0, 9))
    assert ana.can_prove(x < 10)
    ana.update(x, ConstIntBound(0, 4), override=True)
    assert ana.can_prove(x < 5)


def test_update_conflicting_bound_needs_override():
    ana = Analyzer()
    ana.update(x, ConstIntBound(0, 9))
    with pytest.raises(ValueError, match="variable 'x' is already bounded"):
        ana.update(x, ConstIntBound(0, 4))


def test_rebinding_needs_override():
    ana = Analyzer()
    ana.bind(x, y + 1)
    with pytest.raises(ValueError, match="variable 'x' is already bound"):
        ana.bind(x, y + 2)
    ana.bind(x, y + 2, allow_override=True)
    assert ana.simplify(x - y).value == 2


def test_bind_rejects_non_var():
    with pytest.raises(TypeError, match="bind: var must be a tir.Var, got Add"):
        Analyzer().bind(x + 1, Range(0, 4))


def test_update_rejects_unknown_info():
    with pytest.raises(TypeError, match="update: info must be a ConstIntBound, ModularSet, Range or PrimExpr, got str"):
        Analyzer().update(x, "nonsense")


def test_update_conflicting_modular_set_needs_override():
    ana = Analyzer()
    ana.update(x, ModularSet(4, 1))
    with pytest.raises(ValueError, match="already has modular set"):
        ana.update(x, ModularSet(4, 2))


# -- constraint scopes ----------------------------------------------------------------------
def test_constraint_scope_assumes_and_restores():
    ana = Analyzer()
    with ana.constraint_scope(x < 10):
        assert ana.can_prove(x < 11)
        with ana.constraint_scope(x >= 2):
            assert ana.const_int_bound(x) == ConstIntBound(2, 9)
            assert ana.simplify(tir.max(x, 1)) is x
        assert not ana.can_prove(x >= 2)
    assert not ana.can_prove(x < 11)


def test_constraint_scope_symbolic_facts():
    ana = Analyzer()
    with ana.constraint_scope(tir.all(x < n, 0 <= x)):
        assert ana.can_prove(x < n)
        assert ana.can_prove(x * 2 < n * 2)
        assert ana.can_prove(x <= n - 1)
        assert ana.can_prove(tir.min(x, n) == x)
        assert not ana.can_prove(x < n - 1)


def test_constraint_scope_opaque_condition():
    flag = tir.Var("flag", "bool")
    ana = Analyzer()
    with ana.constraint_scope(flag):
        assert ana.can_prove(flag)
    assert not ana.can_prove(flag)


def test_constraint_scope_rejects_non_bool():
    with pytest.raises(TypeError, match="constraint_scope: cond must be boolean, got int32"):
        with Analyzer().constraint_scope(x + 1):
            pass


def test_enter_constraint_scope_returns_exit():
    ana = Analyzer()
    leave = ana.enter_constraint_scope(x < 4)
    assert ana.can_prove(x < 5)
    leave()
    assert not ana.can_prove(x < 5)


# -- proofs ---------------------------------------------------------------------------------
def test_can_prove():
    ana = Analyzer()
    ana.bind(x, Range(0, n))
    assert ana.can_prove(x < n)
    assert ana.can_prove(x + 1 <= n)
    assert not ana.can_prove(x < n - 1)
    assert ana.can_prove(x * 4 + 3 < n * 4)


def test_can_prove_rejects_non_bool():
    with pytest.raises(TypeError, match="can_prove: cond must be a boolean expression, got int32"):
        Analyzer().can_prove(x + 1)


def test_can_prove_equal():
    ana = Analyzer()
    assert ana.can_prove_equal((x + y) * 2, y * 2 + x * 2)
    assert ana.can_prove_equal((x * 4 + 8) // 4, x + 2)
    assert not ana.can_prove_equal(x, y)
    f = tir.Var("f", "float32")
    assert ana.can_prove_equal(f * tir.const(1.0, "float32"), f)


def test_int_set_method():
    ana = Analyzer()
    s = ana.int_set(x * 2 + 1, {x: Range(0, 8)})
    assert s.min_value.value == 1 and s.max_value.value == 15


def test_memo_is_dropped_when_facts_change():
    ana = Analyzer()
    e = tir.min(x, 10)
    assert isinstance(ana.simplify(e), tir.Min)
    ana.bind(x, Range(0, 4))
    assert ana.simplify(e) is x


def test_many_calls_are_fast_enough_to_memoise():
    ana = Analyzer()
    ana.bind(x, Range(0, 16))
    e = (x * 4 + 3) // 4
    first = ana.simplify(e)
    for _ in range(1000):
        assert ana.simplify(e) is first


def test_binding_an_unseen_var_keeps_memo_and_is_respected():
    ana = Analyzer()
    e = x * 4 + 4
    first = ana.simplify(e)
    ana.bind(y, Range(0, 4))  # y never looked at: the memo may stay
    assert ana.simplify(e) is first
    assert ana.simplify(tir.min(y, 10)) is y
    ana.bind(x, Range(0, 2))  # x was looked at: memo dropped
    assert ana.simplify(tir.min(x, 10)) is x


def test_many_symbolic_facts():
    ana = Analyzer()
    loops = [tir.Var(f"i{k}") for k in range(40)]
    for v in loops:
        ana.bind(v, Range(0, n))
    assert all(ana.can_prove(v < n) for v in loops)
    assert not ana.can_prove(loops[0] < loops[1])


def test_detect_linear_equation():
    from ember.arith import detect_linear_equation

    i, j = tir.Var("i"), tir.Var("j")
    coeffs = detect_linear_equation(i * 4 + j * 2 + 3, [i, j])
    assert [c.value for c in coeffs] == [4, 2, 3]
    coeffs = detect_linear_equation(i * n + j + n, [i, j])
    assert coeffs[0] is n and coeffs[1].value == 1 and coeffs[2] is n
    assert detect_linear_equation(i * i, [i]) == []
    assert detect_linear_equation(i // 2, [i]) == []
    coeffs = detect_linear_equation(x + 1, [i])
    assert coeffs[0].value == 0


def test_opaque_facts_simplify_to_constants():
    flag = tir.Var("flag", "bool")
    ana = Analyzer()
    with ana.constraint_scope(flag):
        assert ana.simplify(tir.Select(flag, x, y)) is x
        assert ana.simplify(tir.Not(flag)).value == 0
    with ana.constraint_scope(tir.Not(flag)):
        assert ana.simplify(tir.Select(flag, x, y)) is y


def test_constraint_scope_restores_the_outer_memo():
    ana = Analyzer()
    ana.bind(x, Range(0, 16))
    e = tir.min(x, 7)
    outside = ana.simplify(e)
    with ana.constraint_scope(x < 4):
        assert ana.simplify(e) is x
    assert ana.simplify(e) is outside


def test_binding_a_seen_var_inside_a_scope_invalidates_the_outer_memo():
    ana = Analyzer()
    e = tir.min(y, 7)
    assert isinstance(ana.simplify(e), tir.Min)
    with ana.constraint_scope(x < 4):
        ana.bind(y, Range(0, 4))
    assert ana.simplify(e) is y
