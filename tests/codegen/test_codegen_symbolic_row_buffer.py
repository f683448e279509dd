"""A temporary row of symbolic length, compacted into its row loop, lives on the stack when
it is small at run time and on the heap when it is not; both give the same results."""

import numpy as np
import pytest

import ember as tvm
from ember import te, tir
from ember.codegen.llvm.codegen import STACK_ALLOCA_LIMIT
from ember.tir import Allocate, For
from ember.tir.functor import collect
from ember.tir.transform import lower_for_codegen

pytest.importorskip("ember.arith")


def _row_through_temp():
    """T[i, j] = exp(A[i, j]); B[i, j] = T[i, j] / T[i, 0]: a row stage under the row loop."""
    n, m = te.var("n", "int64"), te.var("m", "int64")
    A = te.placeholder((n, m), name="A")
    T = te.compute((n, m), lambda i, j: te.exp(A[i, j]), name="T")
    B = te.compute((n, m), lambda i, j: T[i, j] - T[i, 0], name="B")
    sch = tir.Schedule(te.create_prim_func([A, B]))
    sch.compute_at(sch.get_block("T"), sch.get_loops(sch.get_block("B"))[0])
    return sch.mod


def test_symbolic_row_moves_into_its_loop():
    func = lower_for_codegen(_row_through_temp(), tvm.target.Target("llvm"))["main"]
    (row,) = collect(func.body, lambda x: isinstance(x, For) and x.loop_var.name == "i")
    (alloc,) = collect(row.body, lambda x: isinstance(x, Allocate))
    assert len(alloc.extents) == 1 and alloc.extents[0].name == "m"


@pytest.mark.parametrize("n, m", [(3, 1), (4, 37), (2, STACK_ALLOCA_LIMIT // 4 + 5)])
def test_stack_and_heap_rows_compute_the_same(n, m):
    kernel = tvm.build(_row_through_temp(), target="llvm")
    a = np.random.default_rng(m).standard_normal((n, m)).astype("float32")
    out = tvm.nd.array(np.zeros_like(a))
    kernel(tvm.nd.array(a), out)
    e = np.exp(a)
    np.testing.assert_allclose(out.numpy(), e - e[:, :1], rtol=1e-5, atol=1e-5)


def test_parallel_rows_on_the_stack():
    mod = _row_through_temp()
    sch = tir.Schedule(mod)
    sch.parallel(sch.get_loops(sch.get_block("B"))[0])
    kernel = tvm.build(sch.mod, target="llvm")
    a = np.random.default_rng(0).standard_normal((64, 100)).astype("float32")
    out = tvm.nd.array(np.zeros_like(a))
    kernel(tvm.nd.array(a), out)
    e = np.exp(a)
    np.testing.assert_allclose(out.numpy(), e - e[:, :1], rtol=1e-5, atol=1e-5)
