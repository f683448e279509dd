"""Structural equality with map_free_vars=False: variables pair only where they are defined;
free ones must be identical (and hash by identity); mismatch paths in TVM's form."""

import numpy as np
import pytest

import ember
from ember import tir
from ember.ir import IRModule, assert_structural_equal, structural_equal, structural_hash
from ember.ir.base import get_first_structural_mismatch
from ember.runtime.object_path import ObjectPath


def _consistent(a, b, map_free_vars=False):
    eq = structural_equal(a, b, map_free_vars)
    assert eq == structural_equal(b, a, map_free_vars)
    assert eq == (structural_hash(a, map_free_vars) == structural_hash(b, map_free_vars))
    return eq


def test_free_variables_must_be_identical_unless_mapped():
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    assert not _consistent(x + 1, y + 1)
    assert _consistent(x + 1, y + 1, map_free_vars=True)
    assert _consistent(x + 1, x + 1)
    assert not _consistent(tir.While(x > 0, tir.Evaluate(x)), tir.While(y > 0, tir.Evaluate(y)))


def test_defined_variables_pair_without_map_free_vars():
    x, y, z = (tir.Var(n, "int32") for n in "xyz")
    s1 = tir.LetStmt(x, 1, tir.Evaluate(x // z))
    s2 = tir.LetStmt(y, 1, tir.Evaluate(y // z))
    assert _consistent(s1, s2)  # z is free but the same object
    w = tir.Var("w", "int32")
    assert not _consistent(s1, tir.LetStmt(y, 1, tir.Evaluate(y // w)))
    loop1 = tir.For(x, 0, 4, tir.ForKind.SERIAL, tir.Evaluate(x))
    loop2 = tir.For(y, 0, 4, tir.ForKind.SERIAL, tir.Evaluate(y))
    assert _consistent(loop1, loop2)


def test_primfunc_params_and_buffer_map_define_their_variables():
    def make():
        n = tir.Var("n", "int32")
        a = tir.decl_buffer((n,), "float32", "A")
        i = tir.Var("i", "int32")
        body = tir.For(i, 0, n, tir.ForKind.SERIAL, tir.BufferStore(a, a[i] + 1.0, (i,)))
        return tir.PrimFunc((a.data,), body, buffer_map={a.data: a})

    assert _consistent(make(), make())


def test_nan_constants_and_ndarrays():
    a = tir.const(float("nan"), "float32")
    b = tir.const(float(np.int32(0x7F800001).view("float32")), "float32")
    assert_structural_equal(a, b)
    assert structural_hash(a) == structural_hash(b)
    x = ember.nd.array(np.arange(6))
    assert _consistent(x, ember.nd.array(np.arange(6)))
    assert not _consistent(x, ember.nd.array(np.arange(6).reshape(2, 3)))


def test_sequence_difference_inside_is_reported_before_length():
    x = tir.Var("x", "int32")
    s1 = tir.SeqStmt([tir.Evaluate(x), tir.Evaluate(x + 2), tir.Evaluate(x + 3)])
    s2 = tir.SeqStmt([tir.Evaluate(x), tir.Evaluate(x + 3)])
    lhs, rhs = get_first_structural_mismatch(s1, s2)
    assert lhs == rhs == ObjectPath.root().attr("seq").array_index(1).attr("value").attr("b").attr("value")
    s3 = tir.SeqStmt([tir.Evaluate(x), tir.Evaluate(x + 2)])
    lhs, rhs = get_first_structural_mismatch(s1, s3)
    assert lhs == ObjectPath.root().attr("seq").array_index(2)
    assert rhs == ObjectPath.root().attr("seq").missing_array_element(2)


def test_buffer_map_entry_missing_on_one_side():
    x, y = tir.Var("x", "handle"), tir.Var("y", "handle")
    b0, b1 = tir.decl_buffer((10, 10)), tir.decl_buffer((10, 20))
    f0 = tir.PrimFunc((x,), tir.Evaluate(x), buffer_map={x: b0})
    f1 = tir.PrimFunc((x,), tir.Evaluate(x), buffer_map={x: b0, y: b1})
    lhs, rhs = get_first_structural_mismatch(f0, f1)
    assert lhs == ObjectPath.root().attr("buffer_map").missing_map_entry()
    assert rhs == ObjectPath.root().attr("buffer_map").map_value(y)
    f2 = tir.PrimFunc((x,), tir.Evaluate(x), buffer_map={x: b1})
    lhs, rhs = get_first_structural_mismatch(f0, f2)
    assert lhs == ObjectPath.root().attr("buffer_map").map_value(x).attr("shape").array_index(1).attr("value")


def test_mismatch_message_names_the_function():
    def module(n):
        i = tir.Var("i", "int32")
        return IRModule({"func": tir.PrimFunc((), tir.For(i, 0, n, tir.ForKind.SERIAL, tir.Evaluate(i)))})

    assert_structural_equal(module(16), module(16))
    with pytest.raises(ValueError, match=r'<root>\.functions\[I\.GlobalVar\("func"\)\]\.body\.extent\.value'):
        assert_structural_equal(module(16), module(32))
