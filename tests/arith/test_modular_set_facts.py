"""Modular sets learn from bound values, Let bindings, casts, shifts and masks, and from
``v % c == k`` constraints (intersected by Chinese remaindering inside nested scopes)."""

from ember import te, tir
from ember.arith import Analyzer, ModularSet
from ember.arith.modular_set import intersect_modular


def _ms(m):
    return (m.coeff, m.base)


def test_bound_value_gives_its_residues():
    ana = Analyzer()
    x, y = te.var("x", "int64"), te.var("y", "int64")
    ana.bind(y, x * 4 + 1)
    assert _ms(ana.modular_set(1 - y)) == (4, 0)


def test_let_cast_shift_and_mask():
    ana = Analyzer()
    x, y = te.var("x"), te.var("y")
    assert _ms(ana.modular_set(tir.Let(x, y * 10, x + 1))) == (10, 1)
    x8 = te.var("x8", "int8")
    assert _ms(ana.modular_set((x8 * 3).astype("uint32"))) == (3, 0)
    assert _ms(ana.modular_set((x8 * 3 + 1).astype("float32").astype("int32"))) == (3, 1)
    assert _ms(ana.modular_set(tir.shift_right(x * 4 + 2, 1))) == (2, 1)
    assert _ms(ana.modular_set(tir.bitwise_and(x * 16 + y * 4, 31))) == (4, 0)
    assert _ms(ana.modular_set(tir.bitwise_and(x * 16 + y * 4, 17))) == (1, 0)


def test_exact_truncdiv_of_unknown_sign():
    ana = Analyzer()
    b = te.var("b")
    assert _ms(ana.modular_set(tir.truncdiv(b * 8, 4))) == (2, 0)
    a = te.var("a")
    assert _ms(ana.modular_set(tir.truncdiv(a * 4 + 1, 2))) == (1, 0)  # rounds: nothing known


def test_constraints_intersect_and_are_forgotten():
    ana = Analyzer()
    a = te.var("a")
    with ana.constraint_scope(tir.truncmod(a, 3) == 2):
        with ana.constraint_scope(tir.truncmod(a, 5) == 3):
            with ana.constraint_scope(tir.floormod(a, 7) == 2):
                assert _ms(ana.modular_set(a)) == (105, 23)
        assert _ms(ana.modular_set(a)) == (3, 2)
    assert _ms(ana.modular_set(a)) == (1, 0)


def test_intersect_modular():
    assert intersect_modular(ModularSet(4, 1), ModularSet(3, 1)) == ModularSet(12, 1)
    assert intersect_modular(ModularSet(4, 1), ModularSet(2, 0)) is None
    assert intersect_modular(ModularSet(0, 5), ModularSet(4, 1)) == ModularSet(0, 5)
