"""LoopPartition: loops cut where their conditions change value; results stay the same."""

import numpy as np
import pytest
from tir_lower_builders import run_llvm

import ember
from ember import tir
from ember.script import tir as T
from ember.tir.functor import collect


@T.prim_func
def pad_copy(A: T.Buffer((16,), "float32"), B: T.Buffer((20,), "float32")):
    for i in range(20):
        if T.likely(2 <= i and i < 18):
            B[i] = A[i - 2]
        else:
            B[i] = T.float32(0)


@T.prim_func
def concat_hinted(A: T.Buffer((6,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((10,), "float32")):
    for i in T.serial(10, annotations={"pragma_loop_partition_hint": 1}):
        if i < 6:
            C[i] = A[i]
        if 6 <= i:
            C[i] = B[i - 6]


@T.prim_func
def tail_symbolic(a: T.handle, b: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i, j in T.grid((n + 3) // 4, 4):
        if T.likely(i * 4 + j < n):
            B[i * 4 + j] = A[i * 4 + j] * T.float32(2)


def _partition(func, **options):
    mod = ember.IRModule({"main": func})
    with ember.transform.PassContext(config={"tir.LoopPartition": options}):
        mod = tir.transform.LoopPartition()(mod)
    return tir.transform.Simplify()(mod)["main"]


def _ifs(func):
    return collect(func.body, lambda n: isinstance(n, tir.IfThenElse))


def test_constant_loop_is_left_alone_by_default():
    assert len(_ifs(_partition(pad_copy))) == 1


def test_constant_loop_cut_at_both_ends():
    after = _partition(pad_copy, partition_const_loop=True)
    assert not _ifs(after)
    loops = [n for n in collect(after.body, lambda n: isinstance(n, tir.For))]
    assert sorted(int(lp.extent) for lp in loops) == [2, 2, 16]
    a = np.arange(16, dtype="float32") + 1
    want = run_llvm(pad_copy, a, np.ones(20, "float32"))[1]
    np.testing.assert_allclose(run_llvm(after, a, np.ones(20, "float32"))[1], want)


def test_hint_partitions_every_condition():
    after = _partition(concat_hinted)
    assert not _ifs(tir.transform.RemoveNoOp()(ember.IRModule({"main": after}))["main"])
    a, b = np.arange(6, dtype="float32"), np.arange(4, dtype="float32") + 10
    got = run_llvm(after, a, b, np.zeros(10, "float32"))[2]
    np.testing.assert_allclose(got, np.concatenate([a, b]))


@pytest.mark.parametrize("n", [1, 4, 7, 13])
def test_symbolic_tail_gives_the_same_result(n):
    after = _partition(tail_symbolic)
    assert len(_ifs(after)) < 2  # the full tiles lost their bound check
    a = np.arange(n, dtype="float32")
    got = run_llvm(after, a, np.zeros(n, "float32"), n)[1]
    np.testing.assert_allclose(got, a * 2)
