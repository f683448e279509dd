"""PeelGuardedTail: a loop whose whole body is ``if v*c + d < n: A else: B`` (VectorizeLoop's
whole vectors and their lane-by-lane tail over a symbolic extent) runs A for the prefix of
iterations where the test holds, then B, with no test per iteration."""

import numpy as np
import pytest
from tir_lower_builders import func_of, loop

import ember as tvm
from ember import te, tir
from ember.tir import For, IfThenElse
from ember.tir.functor import collect
from ember.tir.transform import lower_for_codegen
from ember.tir.transform.peel_guarded_tail import peel_guarded_tail


def _scaled_row():
    """B[i] = A[i] * 2 over a symbolic n, vectorised by 16 with a tail predicate."""
    n = te.var("n", "int64")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    sch = tir.Schedule(te.create_prim_func([A, B]))
    (i,) = sch.get_loops(sch.get_block("B"))
    _, inner = sch.split(i, factors=[None, 16])
    sch.vectorize(inner)
    return sch.mod


def _guarded(cond_of, extent):
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    A = tir.decl_buffer((m,), "float32", "A")  # m >= the loop's extent
    v = tir.Var("v", "int64")
    body = IfThenElse(cond_of(v, n), tir.BufferStore(A, tir.const(1.0, "float32"), (v,)),
                      tir.BufferStore(A, tir.const(2.0, "float32"), (v,)))
    return func_of([n, A], loop(v, extent(n), body))


def test_vector_tail_is_peeled_off():
    func = lower_for_codegen(_scaled_row(), tvm.target.Target("llvm"))["main"]
    loops = [f for f in collect(func.body, lambda x: isinstance(x, For))]
    # the whole vectors' loop holds no test
    assert any(not collect(f.body, lambda x: isinstance(x, IfThenElse)) and f.body.value.dtype.lanes == 16
               for f in loops if isinstance(f.body, tir.BufferStore))
    kernel = tvm.build(_scaled_row(), target="llvm")
    for n in (0, 1, 15, 16, 17, 40):
        a = np.arange(n, dtype="float32") - 3
        out = tvm.nd.array(np.zeros(n, "float32"))
        kernel(tvm.nd.array(a), out)
        np.testing.assert_array_equal(out.numpy(), a * 2)


@pytest.mark.parametrize("c,d", [(16, 15), (1, 0), (4, -2)])
def test_split_point_matches_the_test(c, d):
    func = _guarded(lambda v, n: v * c + d < n, lambda n: (n + 15) // 16 * 4)
    peeled = peel_guarded_tail(func)
    assert peeled is not func
    kernel_ref, kernel = tvm.build(func, target="llvm"), tvm.build(peeled, target="llvm")
    for n in (0, 1, 5, 16, 33):
        size = (n + 15) // 16 * 4
        want, got = tvm.nd.array(np.zeros(size, "float32")), tvm.nd.array(np.zeros(size, "float32"))
        kernel_ref(n, want)
        kernel(n, got)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("cond_of,extent", [
    (lambda v, n: v * -1 + 3 < n, lambda n: n),  # not a prefix
    (lambda v, n: v < n - v, lambda n: n),  # the bound moves with v
    (lambda v, n: v * 2 < tir.const(9, "int64"), lambda n: tir.const(8, "int64")),  # constant: Simplify's job
])
def test_other_loops_are_left_alone(cond_of, extent):
    func = _guarded(cond_of, extent)
    assert peel_guarded_tail(func) is func
