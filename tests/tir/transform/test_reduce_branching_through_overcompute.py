"""ReduceBranchingThroughOvercompute: an if whose then-branch is harmless when false goes away."""

import numpy as np

import ember
from ember import tir
from ember.script import tir as T
from ember.tir.functor import collect


def _reduce(func):
    return tir.transform.ReduceBranchingThroughOvercompute()(ember.IRModule({"main": func}))["main"]


def _ifs(func):
    return collect(func.body, lambda n: isinstance(n, tir.IfThenElse))


@T.prim_func
def sum_of_squares(A: T.Buffer(1, "int32")):
    for i in range(16):
        if i > 0:
            A[0] = A[0] + i * i


@T.prim_func
def guarded_copy(A: T.Buffer(16, "int32"), B: T.Buffer(16, "int32")):
    for i in range(16):
        if i < 14:
            B[i] = A[i]


def test_addition_of_zero_when_false_needs_no_branch():
    after = _reduce(sum_of_squares)
    assert not _ifs(after)
    out = ember.nd.array(np.zeros(1, "int32"))
    ember.build(after, target="llvm")(out)
    assert int(out.numpy()[0]) == sum(i * i for i in range(16))


def test_a_write_that_would_change_memory_keeps_its_branch():
    assert len(_ifs(_reduce(guarded_copy))) == 1
