"""T.comm_reducer: built from a lambda and identity elements, printed and parsed back."""

import pytest

from ember.ir import assert_structural_equal
from ember.script import from_source
from ember.script import tir as T
from ember.te import CommReducer


def test_comm_reducer_builds_vars_typed_by_identity():
    r = T.comm_reducer(lambda a0, a1, b0, b1: (T.max(a0, b0), a1 + b1), [T.float32(0), T.int32(0)])
    assert isinstance(r, CommReducer)
    assert [v.name for v in r.lhs] == ["a0", "a1"] and [v.name for v in r.rhs] == ["b0", "b1"]
    assert [str(v.dtype) for v in r.lhs] == ["float32", "int32"]
    assert r.script() == ("T.comm_reducer(lambda a0, a1, b0, b1: (T.max(a0, b0), a1 + b1), "
                          "[T.float32(0.0), T.int32(0)])")


def test_comm_reducer_argument_count_is_checked():
    with pytest.raises(TypeError, match="need 2"):
        T.comm_reducer(lambda x: x, [T.float32(0)])


def test_comm_reducer_in_attr_round_trips():
    @T.prim_func
    def func(a: T.handle):
        A = T.match_buffer(a, (4,), "float32")
        with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), "reduce_scope",
                    T.reinterpret(T.uint64(0), dtype="handle")):
            A[0] = T.float32(1)

    text = func.script()
    assert "T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)])" in text
    assert_structural_equal(from_source(text), func)
