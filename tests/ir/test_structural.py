"""Structural equality and hashing: bound variables by position, readable diffs."""

import pytest

from ember import tir
from ember.ir import (
    IRModule, StructuralMismatch, Var, assert_structural_equal, const, structural_equal,
    structural_hash,
)


def add_one(n_name="n", var_name="i", offset=1.0):
    n = tir.Var(n_name)
    A = tir.decl_buffer((n,), "float32", "A")
    B = tir.decl_buffer((n,), "float32", "B")
    i = tir.Var(var_name)
    body = tir.For(i, const(0), n, tir.ForKind.SERIAL, tir.BufferStore(B, A[i] + offset, (i,)))
    return tir.PrimFunc((A.data, B.data), body, buffer_map={A.data: A, B.data: B})


def test_alpha_equivalent_functions_are_equal():
    f, g = add_one(), add_one("m", "j")
    assert structural_equal(f, g)
    assert structural_hash(f) == structural_hash(g)


def test_different_constant_differs():
    f, g = add_one(), add_one(offset=2.0)
    assert not structural_equal(f, g)
    with pytest.raises(StructuralMismatch, match="first difference at <root>.body.body.value.b.value") as info:
        assert_structural_equal(f, g)
    assert info.value.path == "body.body.value.b.value"


def test_variable_pairing_is_consistent():
    x, y = Var("x"), Var("y")
    assert structural_equal(x + y, y + x)  # both sides pair fresh variables in order
    assert not structural_equal(x + x, x + y)
    assert structural_equal(x + x, y + y)
    assert structural_equal(x + 1, x + 1, map_free_vars=False)
    assert not structural_equal(x + 1, y + 1, map_free_vars=False)


def test_dtype_differs():
    assert not structural_equal(Var("x", "int32"), Var("x", "int64"))


def test_modules():
    m1, m2 = IRModule({"main": add_one()}), IRModule({"main": add_one("k")})
    assert structural_equal(m1, m2)
    m3 = IRModule({"other": add_one()})
    assert not structural_equal(m1, m3)


def test_hash_differs_for_different_programs():
    assert structural_hash(add_one()) != structural_hash(add_one(offset=3.0))
