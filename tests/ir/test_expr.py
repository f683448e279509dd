"""PrimExpr construction through Python operators: types, promotion, folding, errors."""

import pytest

from ember import tir
from ember.ir import (
    EQ, Add, Cast, Div, FloatImm, FloorDiv, FloorMod, IntImm, Mul, Op, Range, Sub, Var, const,
)


def test_operators_build_nodes():
    x, y = Var("x"), Var("y")
    assert isinstance(x + y, Add)
    assert isinstance(x - 1, Sub)
    assert isinstance(2 * x, Mul)
    assert isinstance(x // 4, FloorDiv)
    assert isinstance(x % 4, FloorMod)
    assert isinstance(x / y, Div)
    e = x == y
    assert isinstance(e, EQ) and e.dtype == "bool"
    assert (x < y).dtype == "bool"


def test_python_numbers_take_the_other_side_type():
    x = Var("x", "int64")
    e = x + 1
    assert e.dtype == "int64" and e.b.dtype == "int64"
    f = Var("f", "float16")
    assert (f * 2.0).dtype == "float16"


def test_promotion():
    a, b = Var("a", "int32"), Var("b", "int64")
    e = a + b
    assert e.dtype == "int64" and isinstance(e.a, Cast)
    f = Var("f", "float32")
    assert (a + f).dtype == "float32"


def test_constant_folding():
    assert (const(3) + 4).value == 7
    assert (const(-7) // 2).value == -4
    assert (const(-7) % 2).value == 1
    assert tir.truncdiv(const(-7), 2).value == -3
    assert tir.truncmod(const(-7), 2).value == -1
    assert (const(2.0) * 3.0).value == 6.0
    assert (const(1) < 2).value == 1
    with pytest.raises(ZeroDivisionError, match="constant zero"):  # as TVM: an error, not UB at run time
        const(1) // 0


def test_constants():
    assert const(1).dtype == "int32"
    assert const(2**40).dtype == "int64"
    assert const(1.5).dtype == "float32"
    assert const(True).dtype == "bool"
    assert isinstance(const(1, "float64"), FloatImm)
    assert isinstance(const(3, "int8"), IntImm)
    with pytest.raises(TypeError, match="non-integral"):
        const(1.5, "int32")
    with pytest.raises(TypeError, match="cannot make a constant"):
        const("x")


def test_eq_bool_is_identity():
    x, y = Var("x"), Var("y")
    assert bool(x == x)
    assert not bool(x == y)
    assert x in [y, x]
    assert {x: 1}[x] == 1


def test_symbolic_bool_raises():
    x = Var("x")
    with pytest.raises(ValueError, match="Python bool"):
        bool(x < 3)


def test_logic_needs_bool():
    x = Var("x")
    assert (x < 1) & (x > 0) is not None
    with pytest.raises(TypeError):
        tir.logical_and(x, x)
    bits = x & 3
    assert bits.op is Op.get("tir.bitwise_and")


def test_intrinsics_and_errors():
    f = Var("f", "float32")
    assert tir.exp(f).dtype == "float32"
    assert tir.isnan(f).dtype == "bool"
    with pytest.raises(TypeError, match="float argument"):
        tir.exp(Var("i"))
    with pytest.raises(KeyError, match="not registered"):
        Op.get("tir.expp")


def test_range():
    r = Range(0, 10)
    assert r.min.value == 0 and r.extent.value == 10
    assert Range(5).extent.value == 5


def test_limits():
    assert tir.max_value("int8").value == 127
    assert tir.min_value("uint8").value == 0
    assert tir.min_value("float32").value == float("-inf")


def test_integer_folding_wraps_like_c():
    assert (const(255, "uint8") + const(1, "uint8")).value == 0
    assert (const(127, "int8") + const(1, "int8")).value == -128
    assert (const(127, "int8") * const(127, "int8")).value == 1
    assert (const(0, "uint8") - const(10, "uint8")).value == 246


def test_bitwise_folding_of_bools_stays_zero_or_one():
    t, f = const(True), const(False)
    assert [(t ^ f).value, (t ^ t).value, (t << f).value] == [1, 0, 1]  # was -1 for true results
    assert (t ^ f).dtype == "bool"


@pytest.mark.parametrize("value, dtype", [(256, "uint8"), (-1, "uint32"), (-129, "int8"), (65505.0, "float16")])
def test_out_of_range_literals_are_refused(value, dtype):
    from ember.error import ConstantRangeError

    with pytest.raises(ConstantRangeError, match=f"outside the range of {dtype}"):
        const(value, dtype)


def test_float_literal_beyond_float32_is_float64_and_overflow_is_inf():
    assert const(3.402e39).dtype == "float64"
    assert const(3e30, "float32") * const(3e30, "float32") is not None
    assert (const(3e30, "float32") * const(3e30, "float32")).value == float("inf")


def test_range_begin_end_keywords():
    from ember.ir import Range

    r = Range(begin=2, end=5)
    assert (r.min.value, r.extent.value) == (2, 3)
    assert Range(4).extent.value == 4
    with pytest.raises(TypeError, match="not both"):
        Range(1, 2, begin=0, end=3)
    with pytest.raises(TypeError, match="end="):
        Range(begin=1)
