"""Property tests: simplification, bounds and integer sets agree with the evaluator."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ember import tir
from ember.arith import Analyzer, eval_set, evaluate
from ember.arith.int_set import is_neg_inf, is_pos_inf
from ember.ir import DataType, IntImm, Range

X, Y, Z = tir.Var("x"), tir.Var("y"), tir.Var("z")
VARS = (X, Y, Z)
RANGES = {X: (0, 8), Y: (-4, 5), Z: (1, 17)}  # [lo, hi)

consts = st.integers(-9, 9).map(lambda v: IntImm(X.dtype, v))
leaves = st.one_of(st.sampled_from(VARS), consts)

_BIN = [
    lambda a, b: a + b,
    lambda a, b: a - b,
    lambda a, b: a * b,
    lambda a, b: a // b,
    lambda a, b: a % b,
    tir.truncdiv,
    tir.truncmod,
    tir.min,
    tir.max,
]
_CMP = [lambda a, b: a < b, lambda a, b: a <= b, lambda a, b: a == b, lambda a, b: a != b,
        lambda a, b: a > b, lambda a, b: a >= b]


I64, I8, I32 = DataType("int64"), DataType("int8"), DataType("int32")
_CASTS = [
    lambda a, b: tir.Cast(I32, tir.Cast(I64, a) * tir.const(3, "int64") + tir.Cast(I64, b)),
    # a narrowing cast wraps; arithmetic itself is assumed not to overflow (as in TVM)
    lambda a, b: tir.Cast(I32, tir.Cast(I8, a)) + b,
    lambda a, b: tir.Cast(I32, tir.Cast(I64, a - b)) - tir.Cast(I32, tir.Cast(I64, a)),
]


def _apply(fn, a, b):
    """``fn(a, b)``; a division of two constants by zero is refused at construction (as
    TVM does), so the generator builds the unfolded node instead."""
    try:
        return fn(a, b)
    except ZeroDivisionError:
        return tir.FloorDiv(a, b)


def _extend(children):
    binary = st.tuples(st.sampled_from(_BIN), children, children).map(lambda t: _apply(t[0], t[1], t[2]))
    select = st.tuples(st.sampled_from(_CMP), children, children, children, children).map(
        lambda t: tir.Select(t[0](t[1], t[2]), t[3], t[4]))
    casts = st.tuples(st.sampled_from(_CASTS), children, children).map(lambda t: t[0](t[1], t[2]))
    return st.one_of(binary, binary, select, casts)


int_exprs = st.recursive(leaves, _extend, max_leaves=8)


def _bool_extend(children):
    return st.one_of(
        st.tuples(children, children).map(lambda t: tir.all(t[0], t[1])),
        st.tuples(children, children).map(lambda t: tir.any(t[0], t[1])),
        children.map(tir.logical_not),
    )


cmp_exprs = st.tuples(st.sampled_from(_CMP), int_exprs, int_exprs).map(lambda t: t[0](t[1], t[2]))
bool_exprs = st.recursive(cmp_exprs, _bool_extend, max_leaves=4)

envs = st.fixed_dictionaries({v: st.integers(lo, hi - 1) for v, (lo, hi) in RANGES.items()})


def _analyzer() -> Analyzer:
    ana = Analyzer()
    for v, (lo, hi) in RANGES.items():
        ana.bind(v, Range(lo, hi - lo))
    return ana


ANA = _analyzer()


def _value(e, env):
    try:
        return evaluate(e, env)
    except ZeroDivisionError:
        return None


def _assert_same_values(e, simple, env_list):
    """``simple`` evaluates like ``e`` at every environment (one where ``e`` divides by
    zero is not a sample)."""
    for env in env_list:
        want = _value(e, env)
        assume(want is not None)
        assert _value(simple, env) == want, (e, simple, env)


_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(int_exprs, st.lists(envs, min_size=1, max_size=4))
def test_simplify_preserves_value(e, env_list):
    ana = _analyzer()
    simple = ana.simplify(e)
    assert simple.dtype == e.dtype
    _assert_same_values(e, simple, env_list)


@_SETTINGS
@given(int_exprs, st.lists(envs, min_size=1, max_size=4))
def test_canonical_simplify_preserves_value_shared_analyzer(e, env_list):
    simple = ANA.canonical_simplify(e)
    _assert_same_values(e, simple, env_list)


@_SETTINGS
@given(bool_exprs, st.lists(envs, min_size=1, max_size=4))
def test_simplify_preserves_conditions(e, env_list):
    simple = ANA.simplify(e)
    assert simple.dtype == e.dtype
    _assert_same_values(e, simple, env_list)


@_SETTINGS
@given(int_exprs, envs)
def test_const_int_bound_contains_value(e, env):
    value = _value(e, env)
    assume(value is not None)
    bound = ANA.const_int_bound(e)
    assert bound.min_value <= value <= bound.max_value, (e, bound, env)


@_SETTINGS
@given(int_exprs, envs)
def test_modular_set_contains_value(e, env):
    value = _value(e, env)
    assume(value is not None)
    m = ANA.modular_set(e)
    if m.coeff == 0:
        assert value == m.base, (e, m)
    else:
        assert (value - m.base) % m.coeff == 0, (e, m, value)


@_SETTINGS
@given(int_exprs, envs)
def test_eval_set_contains_value(e, env):
    value = _value(e, env)
    assume(value is not None)
    dom = {v: Range(lo, hi - lo) for v, (lo, hi) in RANGES.items()}
    s = eval_set(e, dom)
    if not is_neg_inf(s.min_value):
        assert evaluate(s.min_value, env) <= value, (e, s, env)
    if not is_pos_inf(s.max_value):
        assert value <= evaluate(s.max_value, env), (e, s, env)


@_SETTINGS
@given(bool_exprs, envs)
def test_can_prove_is_sound(e, env):
    value = _value(e, env)
    assume(value is not None)
    if ANA.can_prove(e):
        assert value, e


@pytest.mark.parametrize("seed_expr", [X // 0, X % 0])
def test_division_by_zero_is_left_alone(seed_expr):
    assert type(ANA.simplify(seed_expr)) is type(seed_expr)


@_SETTINGS
@given(int_exprs, st.lists(envs, min_size=1, max_size=4))
def test_simplify_without_bounds_preserves_value(e, env_list):
    simple = Analyzer().simplify(e)
    _assert_same_values(e, simple, env_list)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.filter_too_much])
@given(cmp_exprs, int_exprs, st.lists(envs, min_size=1, max_size=6))
def test_simplify_under_constraint_scope(cond, e, env_list):
    ana = _analyzer()
    with ana.constraint_scope(cond):
        simple = ana.simplify(e)
        simple_cond = ana.simplify(cond)
    for env in env_list:
        holds = _value(cond, env)
        want = _value(e, env)
        assume(holds is not None and want is not None)
        if holds:
            assert _value(simple, env) == want, (cond, e, simple, env)
            assert _value(simple_cond, env), (cond, simple_cond, env)
