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


def _knowing(func):
    return _simplify(func, propagate_knowns_to_prove_conditional=True)


def _ifs(func):
    from ember.tir.functor import collect

    return collect(func.body, lambda n: isinstance(n, tir.IfThenElse))


def test_written_value_proves_a_later_condition():
    @T.prim_func
    def f(A: T.Buffer(1, "int32")):
        A[0] = 0
        A[0] = A[0] + 1
        if A[0] == 1:
            A[0] = 42

    assert not _ifs(_knowing(f))
    assert len(_ifs(_simplify(f))) == 1  # only with the option


def test_loop_fills_a_range_that_a_later_loop_reads():
    @T.prim_func
    def f(A: T.Buffer(16, "int32"), B: T.Buffer(16, "int32")):
        for i in range(16):
            A[i] = i
        for j in range(16):
            if A[j] == j:
                B[j] = 1

    assert not _ifs(_knowing(f))


def test_value_written_in_a_branch_or_across_iterations_is_not_known():
    @T.prim_func
    def branch(A: T.Buffer(16, "int32")):
        for i in range(16):
            T.evaluate(T.assume(A[i] == 0))
        for i in range(16):
            if i == 0:
                A[i] = 5
            if A[i] == 0:
                A[i] = 42

    @T.prim_func
    def carried(A: T.Buffer(16, "int32"), B: T.Buffer(1, "int32")):
        B[0] = 0
        for i in range(16):
            if B[0] < 10:
                B[0] = A[i] + B[0]

    assert len(_ifs(_knowing(branch))) == 2
    assert len(_ifs(_knowing(carried))) == 1


def test_assumption_holds_for_the_statements_after_it():
    @T.prim_func
    def f(A: T.Buffer(1, "int32"), n: T.int32):
        T.evaluate(T.assume(n == 0))
        if n == 0:
            A[0] = 42

    assert not _ifs(_simplify(f))
