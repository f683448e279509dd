"""Property: random integer and float expressions evaluate the same in the interpreter,
in an independent Python reference, and (when available) in LLVM-compiled code."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ember import te, tir

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def wrap32(v: int) -> int:
    return (v - INT32_MIN) % 2**32 + INT32_MIN


def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# each rule: (builder on PrimExprs, reference on Python ints)
INT_RULES = {
    "add": (lambda a, b: a + b, lambda a, b: wrap32(a + b)),
    "sub": (lambda a, b: a - b, lambda a, b: wrap32(a - b)),
    "mul": (lambda a, b: a * b, lambda a, b: wrap32(a * b)),
    "min": (tir.min, min),
    "max": (tir.max, max),
    "floordiv": (lambda a, b: tir.floordiv(a, tir.max(b, 1)), lambda a, b: a // max(b, 1)),
    "floormod": (lambda a, b: tir.floormod(a, tir.max(b, 1)), lambda a, b: a % max(b, 1)),
    # divisors <= -2: INT_MIN / -1 is undefined (it traps on x86)
    "truncdiv": (lambda a, b: tir.truncdiv(a, tir.min(b, -2)), lambda a, b: tdiv(a, min(b, -2))),
    "truncmod": (lambda a, b: tir.truncmod(a, tir.min(b, -2)),
                 lambda a, b: a - tdiv(a, min(b, -2)) * min(b, -2)),
    "select": (lambda a, b: tir.Select(a < b, a - b, b), lambda a, b: wrap32(a - b) if a < b else b),
}


@st.composite
def int_exprs(draw, depth=0):
    if depth >= 3 or draw(st.booleans()):
        return draw(st.sampled_from(["x", "y", "c"])), draw(st.integers(-50, 50))
    rule = draw(st.sampled_from(sorted(INT_RULES)))
    return rule, draw(int_exprs(depth + 1)), draw(int_exprs(depth + 1))


def build(tree, x, y):
    head = tree[0]
    if head == "x":
        return x
    if head == "y":
        return y
    if head == "c":
        return tir.const(tree[1], "int32")
    return INT_RULES[head][0](build(tree[1], x, y), build(tree[2], x, y))


def reference(tree, x: int, y: int, overflowed=None) -> int:
    """The value with wrap-around; ``overflowed`` (a list) records any signed overflow,
    which the IR leaves undefined (LLVM adds carry ``nsw``)."""
    head = tree[0]
    if head in ("x", "y", "c"):
        return {"x": x, "y": y, "c": tree[1]}[head]
    a, b = reference(tree[1], x, y, overflowed), reference(tree[2], x, y, overflowed)
    exact = {"add": a + b, "sub": a - b, "mul": a * b}.get(head)
    if overflowed is not None and exact is not None and not INT32_MIN <= exact <= INT32_MAX:
        overflowed.append(head)
    return INT_RULES[head][1](a, b)


XS = np.array([-7, -1, 0, 3, 1000, -(2**15), 12345, -999], "int32")
YS = np.array([2, -3, 5, 0, 7, -1, -2**20, 17], "int32")


def _func(tree):
    X = te.placeholder((len(XS),), name="X", dtype="int32")
    Y = te.placeholder((len(XS),), name="Y", dtype="int32")
    out = te.compute((len(XS),), lambda i: build(tree, X[i], Y[i]), name="out")
    return te.create_prim_func([X, Y, out])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(int_exprs())
def test_integer_expressions_match_reference(tree):
    from hypothesis import assume

    from ember.tir import interpreter

    overflowed: list = []
    for a, b in zip(XS, YS):
        reference(tree, int(a), int(b), overflowed)
    assume(not overflowed)  # undefined; create_prim_func's simplifier assumes it never happens
    expected = np.array([reference(tree, int(a), int(b)) for a, b in zip(XS, YS)], "int64").astype("int32")
    got = np.zeros(len(XS), "int32")
    interpreter.run(_func(tree), XS, YS, got)
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(int_exprs())
def test_integer_expressions_llvm_matches_interpreter(tree):
    import pytest

    try:
        import ember
        import ember.codegen.llvm  # noqa: F401
    except ImportError:
        pytest.skip("ember.build (llvm) is not available")
    from ember.tir import interpreter

    from hypothesis import assume

    overflowed: list = []
    for a, b in zip(XS, YS):
        reference(tree, int(a), int(b), overflowed)
    assume(not overflowed)  # signed overflow is undefined behaviour, as in C and TVM
    func = _func(tree)
    ref = np.zeros(len(XS), "int32")
    interpreter.run(func, XS, YS, ref)
    got = np.zeros(len(XS), "int32")
    ember.build(func, target="llvm")(XS, YS, got)
    np.testing.assert_array_equal(got, ref)
