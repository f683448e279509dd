"""get_first_structural_mismatch gives a (lhs, rhs) pair; structural_hash takes map_free_vars."""

from ember import tir
from ember.ir import structural_equal, structural_hash
from ember.ir.base import get_first_structural_mismatch


def test_mismatch_unpacks_as_pair():
    x = tir.Var("x", "int32")
    pair = get_first_structural_mismatch(x + 1, x + 2)
    lhs, rhs = pair
    assert pair[0] == lhs and pair[1] == rhs and len(pair) == 2
    assert get_first_structural_mismatch(x + 1, x + 1) is None


def test_structural_hash_accepts_map_free_vars():
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    assert structural_equal(x + 1, y + 1, map_free_vars=True)
    assert structural_hash(x + 1, map_free_vars=True) == structural_hash(y + 1, True)


def test_attribute_dicts_compare_by_key():
    a, b = {"x": 1, "y": 2}, {"y": 2, "x": 1}
    assert structural_equal(a, b) and structural_hash(a) == structural_hash(b)
    assert not structural_equal({"x": 1}, {"z": 1})


def test_block_names_are_not_structure():
    b1 = tir.Block([], [], [], "a", tir.Evaluate(0))
    b2 = tir.Block([], [], [], "b", tir.Evaluate(0))
    assert structural_equal(b1, b2) and structural_hash(b1) == structural_hash(b2)
    assert not structural_equal(b1, tir.Block([], [], [], "a", tir.Evaluate(1)))


def test_python_bool_attribute_equals_bool_constant():
    from ember.ir import const

    assert structural_equal({"tir.noalias": True}, {"tir.noalias": const(True, "bool")})
    assert structural_hash(True) == structural_hash(const(True, "bool"))
    assert not structural_equal({"x": True}, {"x": const(False, "bool")})
    assert not structural_equal(True, 1)
