"""topi binary elementwise operators with numpy broadcasting."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from topi_eval import evaluate, rand

from ember import te, topi

BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "power": np.power,
    "floor_divide": lambda a, b: np.floor(a / b),
}
COMPARE = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
           "greater": np.greater, "greater_equal": np.greater_equal}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_float_broadcast(name):
    A = te.placeholder((3, 1, 4), name="A")
    B = te.placeholder((2, 4), name="B")
    C = getattr(topi, name)(A, B)
    assert C.op.name == f"T_{name}" and [int(s) for s in C.shape] == [3, 2, 4]
    a, b = rand(3, 1, 4, low=0.5, high=2), rand(2, 4, low=0.5, high=2, seed=1)
    np.testing.assert_allclose(evaluate([A, B], C, [a, b]), BINARY[name](a, b), rtol=1e-5)


@pytest.mark.parametrize("name", sorted(COMPARE))
def test_comparisons_give_bool(name):
    A = te.placeholder((4,), name="A", dtype="int32")
    B = te.placeholder((4,), name="B", dtype="int32")
    C = getattr(topi, name)(A, B)
    assert str(C.dtype) == "bool"
    a, b = np.array([1, 2, 3, 4], "int32"), np.array([4, 2, 1, 4], "int32")
    np.testing.assert_array_equal(evaluate([A, B], C, [a, b]), COMPARE[name](a, b))


def test_integer_division_ops():
    A = te.placeholder((4,), name="A", dtype="int32")
    B = te.placeholder((4,), name="B", dtype="int32")
    a, b = np.array([7, -7, 7, -7], "int32"), np.array([2, 2, -2, -2], "int32")
    fd, fm, td, tm = evaluate([A, B], [topi.floor_divide(A, B), topi.floor_mod(A, B),
                                       topi.divide(A, B), topi.mod(A, B)], [a, b])
    np.testing.assert_array_equal(fd, a // b)
    np.testing.assert_array_equal(fm, a % b)
    np.testing.assert_array_equal(td, np.trunc(a / b).astype("int32"))
    np.testing.assert_array_equal(tm, np.fmod(a, b))


def test_scalar_operands():
    A = te.placeholder((3,), name="A")
    a = rand(3)
    r1, r2 = evaluate([A], [topi.add(A, 2.0), topi.subtract(1, A)], [a])
    np.testing.assert_allclose(r1, a + 2)
    np.testing.assert_allclose(r2, 1 - a)
    assert topi.add(te.const(1.0), 2.0).value == 3.0


def test_logical_and_bitwise():
    A = te.placeholder((4,), name="A", dtype="bool")
    B = te.placeholder((4,), name="B", dtype="bool")
    a, b = np.array([1, 1, 0, 0], bool), np.array([1, 0, 1, 0], bool)
    r = evaluate([A, B], [topi.logical_and(A, B), topi.logical_or(A, B), topi.logical_xor(A, B)], [a, b])
    np.testing.assert_array_equal(r[0], a & b)
    np.testing.assert_array_equal(r[1], a | b)
    np.testing.assert_array_equal(r[2], a ^ b)
    X = te.placeholder((4,), name="X", dtype="int32")
    Y = te.placeholder((4,), name="Y", dtype="int32")
    x, y = np.array([12, 5, 3, 1], "int32"), np.array([10, 3, 1, 2], "int32")
    r = evaluate([X, Y], [topi.bitwise_and(X, Y), topi.bitwise_or(X, Y), topi.bitwise_xor(X, Y),
                          topi.left_shift(X, Y), topi.right_shift(X, Y)], [x, y])
    for got, ref in zip(r, (x & y, x | y, x ^ y, x << y, x >> y)):
        np.testing.assert_array_equal(got, ref)


def test_incompatible_shapes():
    A = te.placeholder((3, 4), name="A")
    B = te.placeholder((5, 4), name="B")
    with pytest.raises(ValueError, match=r"topi.add: shapes \(3, 4\) and \(5, 4\) cannot be broadcast"):
        topi.add(A, B)


def test_symbolic_broadcast():
    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    B = te.placeholder((1, 4), name="B")
    C = topi.multiply(A, B)
    assert C.shape[0] is n
    func = te.create_prim_func([A, B, C])
    from ember.tir import interpreter

    a, b, c = rand(5, 4), rand(1, 4, seed=3), np.zeros((5, 4), "float32")
    interpreter.run(func, a, b, c)
    np.testing.assert_allclose(c, a * b, rtol=1e-6)


def test_broadcast_to():
    A = te.placeholder((3, 1), name="A")
    B = topi.broadcast_to(A, (2, 3, 4))
    a = rand(3, 1)
    np.testing.assert_array_equal(evaluate([A], B, [a]), np.broadcast_to(a, (2, 3, 4)))
    with pytest.raises(ValueError, match="cannot be broadcast together"):
        topi.broadcast_to(A, (2, 4))


shapes = st.lists(st.sampled_from([1, 2, 3]), min_size=0, max_size=3)


@settings(max_examples=25, deadline=None)
@given(shapes, shapes)
def test_broadcast_matches_numpy(sa, sb):
    try:
        expected_shape = np.broadcast_shapes(tuple(sa), tuple(sb))
    except ValueError:
        with pytest.raises(ValueError, match="cannot be broadcast"):
            topi.add(te.placeholder(tuple(sa), name="A"), te.placeholder(tuple(sb), name="B"))
        return
    A, B = te.placeholder(tuple(sa), name="A"), te.placeholder(tuple(sb), name="B")
    C = topi.add(A, B)
    assert tuple(int(d) for d in C.shape) == expected_shape
    a, b = rand(*sa), rand(*sb, seed=5)
    np.testing.assert_allclose(evaluate([A, B], C, [a, b]), a + b, rtol=1e-6)
