"""RemoveNoOp with use_dataflow_analysis: overwritten and already-known writes vanish."""

import numpy as np

import ember
from ember import tir
from ember.script import tir as T
from ember.tir.functor import collect


def _remove(func, dataflow=True):
    mod = ember.IRModule({"main": func})
    with ember.transform.PassContext(config={"tir.RemoveNoOp": {"use_dataflow_analysis": dataflow}}):
        return tir.transform.RemoveNoOp()(mod)["main"]


def _stores(func):
    return collect(func.body, lambda n: isinstance(n, tir.BufferStore))


def _run(func, a):
    out = ember.nd.array(a.copy())
    ember.build(func, target="llvm")(out)
    return out.numpy()


@T.prim_func
def overwritten_loop(A: T.Buffer(16, "int32")):
    for i in T.serial(4, 12):
        A[i] = 100
    for i in range(16):
        A[i] = 42


@T.prim_func
def partly_overwritten(A: T.Buffer(16, "int32")):
    for i in range(16):
        A[i] = 100
    for i in range(16):
        if i < 12:
            A[i] = 42


@T.prim_func
def known_value(A: T.Buffer(16, "int32")):
    for i in range(16):
        A[i] = i
    A[4] = 4
    for i in range(16):
        A[i] = i


@T.prim_func
def read_between(A: T.Buffer(16, "int32")):
    for i in range(16):
        A[i] = 100
    A[0] = A[3] + 1
    for i in range(1, 16):
        A[i] = 42


def test_overwritten_loop_is_removed_only_with_the_option():
    assert len(_stores(_remove(overwritten_loop))) == 1
    assert len(_stores(_remove(overwritten_loop, dataflow=False))) == 2


def test_partial_overwrite_and_reads_in_between_keep_the_first_write():
    assert len(_stores(_remove(partly_overwritten))) == 2
    after = _remove(read_between)
    a = np.zeros(16, "int32")
    np.testing.assert_array_equal(_run(after, a), _run(read_between, a))


def test_rewriting_a_known_value_is_removed_but_one_loop_stays():
    after = _remove(known_value)
    assert len(_stores(after)) == 1
    np.testing.assert_array_equal(_run(after, np.zeros(16, "int32")), np.arange(16))


def test_store_into_itself_under_a_branch_condition():
    @T.prim_func
    def f(A: T.Buffer(16, "int32")):
        for i in range(16):
            if i != 0:
                A[i] = A[i - 1]
            else:
                A[i] = A[0]

    after = _remove(f, dataflow=False)
    (branch,) = collect(after.body, lambda n: isinstance(n, tir.IfThenElse))
    assert branch.else_case is None
