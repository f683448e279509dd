"""Simplify's PassContext options ("tir.Simplify": {...}) and what branch conditions prove."""

import ember
from ember import tir
from ember.ir import IntImm, assert_structural_equal
from ember.script import tir as T


def _simplify(func, **options):
    mod = ember.IRModule({"main": func})
    with ember.transform.PassContext(config={"tir.Simplify": options}):
        return tir.transform.Simplify()(mod)["main"]


def _stored_value(func):
    return func.body.then_case.value


def test_condition_decides_a_comparison_and_narrows_another():
    @T.prim_func
    def f(A: T.Buffer(2, "bool"), i: T.int32, j: T.int32):
        if i <= j:
            A[0] = j <= i

    out = _stored_value(_simplify(f))
    assert isinstance(out, tir.EQ)


def test_transitive_proof_only_when_enabled():
    @T.prim_func
    def f(A: T.Buffer(1, "bool"), i: T.int32, j: T.int32, k: T.int32):
        if i < j and j < k:
            A[0] = i < k

    assert not isinstance(_stored_value(_simplify(f)), IntImm)
    assert _stored_value(_simplify(f, transitively_prove_inequalities=True)).value == 1


def test_and_of_ors_only_when_enabled():
    @T.prim_func
    def f(A: T.Buffer(1, "bool"), i: T.int32, j: T.int32):
        A[0] = i == 20 or j == 0 or i != 30

    @T.prim_func
    def g(A: T.Buffer(1, "bool"), i: T.int32, j: T.int32):
        A[0] = j == 0 or i != 30

    assert_structural_equal(_simplify(f, convert_boolean_to_and_of_ors=True).body, g.body,
                            map_free_vars=True)


def test_buffer_extents_are_not_negative():
    @T.prim_func
    def f(a: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n * 32,), "float32")
        A[T.min(T.int64(0), n)] = T.float32(0)

    out = _simplify(f)
    assert out.body.indices[0].value == 0


def test_non_boolean_condition_is_compared_with_zero():
    @T.prim_func
    def f(A: T.Buffer(10, "bool")):
        for i in range(10):
            if i:
                A[i] = i == 0

    store = _simplify(f).body.body.then_case
    assert store.value.value == 0
