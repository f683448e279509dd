"""The reference evaluator's integer semantics."""

from __future__ import annotations

import pytest

from ember import tir
from ember.arith import evaluate
from ember.ir import DataType

x = tir.Var("x")


@pytest.mark.parametrize("a, b", [(7, 2), (-7, 2), (7, -2), (-7, -2)])
def test_division_semantics(a, b):
    env = {x: a}
    c = tir.const(b)
    assert evaluate(x // c, env) == a // b
    assert evaluate(x % c, env) == a % b
    assert evaluate(tir.truncdiv(x, c), env) == int(a / b)
    assert evaluate(tir.truncmod(x, c), env) == a - b * int(a / b)


def test_wraps_and_casts():
    v = tir.Var("v", "int8")
    assert evaluate(v + tir.const(1, "int8"), {v: 127}) == -128
    f = tir.Var("f", "float32")
    assert evaluate(tir.Cast(DataType("int32"), f), {f: -2.7}) == -2
    assert evaluate(tir.Select(x < 3, x, tir.const(3)), {x: 5}) == 3
    assert evaluate(tir.Let(tir.Var("t"), x + 1, x), {x: 1}) == 1


def test_errors():
    with pytest.raises(KeyError, match="env has no value for the variable 'x'"):
        evaluate(x + 1, {})
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        evaluate(x // tir.const(0), {x: 1})
    with pytest.raises(TypeError, match="cannot evaluate a Ramp node"):
        evaluate(tir.Ramp(x, tir.const(1), 4), {x: 1})
