"""ir.EnvFunc (a registered function by name) and ir.make_node (generic attribute nodes),
compared structurally; tir.stmt_list flattens sequences."""

import pytest

import ember
from ember import tir
from ember.ir import EnvFunc, make_node, structural_equal, structural_hash


def test_env_func_refers_by_name():
    @ember.register_func("test.h5.env_func", override=True)
    def plus_one(x):
        return x + 1

    a, b = EnvFunc.get("test.h5.env_func"), EnvFunc.get("test.h5.env_func")
    assert structural_equal(a, b) and structural_hash(a) == structural_hash(b)
    assert a(2) == 3
    with pytest.raises(Exception):
        EnvFunc.get("test.h5.no_such_func")


def test_make_node_fields_compare_structurally():
    x = make_node("attrs.TestAttrs", axis=1, name="xx")
    assert x.axis.value == 1 and x.name == "xx"
    assert structural_equal(x, make_node("attrs.TestAttrs", axis=1, name="xx"))
    assert not structural_equal(x, make_node("attrs.TestAttrs", axis=2, name="xx"))


def test_stmt_list_flattens():
    a, b, c = (tir.Evaluate(i) for i in range(3))
    assert tir.stmt_list(tir.SeqStmt([a, tir.SeqStmt([b, c])])) == [a, b, c]
    assert tir.stmt_list(a) == [a]
