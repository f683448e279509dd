"""Tutorial: TensorIR blitz course, as a TVM user writes it with ``import ember as tvm``.

Write a PrimFunc in TVMScript, build it for LLVM, run it on NDArrays, transform it with
``tvm.tir.Schedule`` and check that every scheduled variant still matches numpy.
"""

import numpy as np
import pytest

import ember as tvm
from ember.script import ir as I
from ember.script import tir as T


@tvm.script.ir_module
class AddOne:
    @T.prim_func
    def main(a: T.handle, b: T.handle):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        A = T.match_buffer(a, (8,), dtype="float32")
        B = T.match_buffer(b, (8,), dtype="float32")
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + 1.0


@I.ir_module
class MatmulRelu:
    @T.prim_func
    def main(
        A: T.Buffer((128, 128), "float32"),
        B: T.Buffer((128, 128), "float32"),
        C: T.Buffer((128, 128), "float32"),
    ):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((128, 128), dtype="float32")
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))


def _run_add_one(mod) -> np.ndarray:
    rt = tvm.build(mod, target="llvm")
    a = tvm.nd.array(np.arange(8).astype("float32"))
    b = tvm.nd.array(np.zeros((8,)).astype("float32"))
    rt(a, b)
    return b.numpy()


def _run_mm_relu(mod, name: str = "mm_relu") -> None:
    rng = np.random.default_rng(0)
    a_np = rng.uniform(-1, 1, (128, 128)).astype("float32")
    b_np = rng.uniform(-1, 1, (128, 128)).astype("float32")
    dev = tvm.cpu(0)
    a, b = tvm.nd.array(a_np, dev), tvm.nd.array(b_np, dev)
    c = tvm.nd.empty((128, 128), "float32", dev)
    rt = tvm.build(mod, target="llvm")
    rt[name](a, b, c)
    tvm.testing.assert_allclose(c.numpy(), np.maximum(a_np @ b_np, 0), rtol=1e-4, atol=1e-4)


def test_build_and_run_script_module(capsys):
    AddOne.show()
    assert "T.block" in capsys.readouterr().out
    np.testing.assert_allclose(_run_add_one(AddOne), np.arange(8) + 1)


def test_split_reorder_parallel_vectorize():
    sch = tvm.tir.Schedule(AddOne)
    block_b = sch.get_block("B")
    (i,) = sch.get_loops(block_b)
    i0, i1, i2 = sch.split(i, factors=[2, 2, 2])
    sch.reorder(i0, i2, i1)
    sch.parallel(i0)
    sch.vectorize(i1)
    text = sch.mod.script()
    assert "T.parallel" in text and "T.vectorized" in text
    np.testing.assert_allclose(_run_add_one(sch.mod), np.arange(8) + 1)


def test_trace_show_lists_primitives(capsys):
    sch = tvm.tir.Schedule(AddOne)
    (i,) = sch.get_loops(sch.get_block("B"))
    sch.split(i, factors=[None, 4])
    sch.trace.show()
    out = capsys.readouterr().out
    assert "sch.get_block" in out and "sch.split" in out


def test_bind_gpu_threads_prints():
    sch = tvm.tir.Schedule(AddOne)
    (i,) = sch.get_loops(sch.get_block("B"))
    i0, i1 = sch.split(i, [2, 4])
    sch.bind(i0, "blockIdx.x")
    sch.bind(i1, "threadIdx.x")
    text = sch.mod.script()
    assert 'thread="blockIdx.x"' in text and 'thread="threadIdx.x"' in text


def test_matmul_relu_unscheduled():
    _run_mm_relu(MatmulRelu)


def test_matmul_relu_blitz_schedule(capsys):
    sch = tvm.tir.Schedule(MatmulRelu)
    block_y = sch.get_block("Y", func_name="main")
    i, j, k = sch.get_loops(block_y)
    j0, j1 = sch.split(j, factors=[None, 4])
    sch.reorder(j0, k, j1)
    block_c = sch.get_block("C", "main")
    sch.reverse_compute_at(block_c, j0)
    sch.decompose_reduction(block_y, k)
    sch.mod.show()
    out = capsys.readouterr().out
    assert "Y_init" in out
    _run_mm_relu(sch.mod)


def test_matmul_relu_compute_at_and_cache_write():
    sch = tvm.tir.Schedule(MatmulRelu)
    block_y = sch.get_block("Y")
    i, j, k = sch.get_loops(block_y)
    i0, i1 = sch.split(i, factors=[None, 8])
    j0, j1 = sch.split(j, factors=[None, 8])
    sch.reorder(i0, j0, k, i1, j1)
    sch.parallel(i0)
    sch.vectorize(j1)
    _run_mm_relu(sch.mod)

    sch = tvm.tir.Schedule(MatmulRelu)
    block_y = sch.get_block("Y")
    i, j, k = sch.get_loops(block_y)
    block_c = sch.get_block("C")
    ci, cj = sch.get_loops(block_c)
    sch.compute_at(block_y, cj)
    _run_mm_relu(sch.mod)

    sch = tvm.tir.Schedule(MatmulRelu)
    block_y = sch.get_block("Y")
    cached = sch.cache_write(block_y, 0, "global")
    assert sch.get(cached).name_hint.endswith("global")
    _run_mm_relu(sch.mod)


def test_schedule_error_is_clear():
    sch = tvm.tir.Schedule(MatmulRelu)
    with pytest.raises(Exception, match="nonexistent"):
        sch.get_block("nonexistent")


def test_module_from_te_and_tvm_compile():
    A = tvm.te.placeholder((8,), dtype="float32", name="A")
    B = tvm.te.compute((8,), lambda *i: A(*i) + 1.0, name="B")
    mod = tvm.ir.IRModule({"main": tvm.te.create_prim_func([A, B])})
    assert 'T.block("B")' in mod.script()
    rt = tvm.compile(mod, target="llvm")  # a TIR-only module goes to tvm.build
    a = tvm.nd.array(np.arange(8).astype("float32"))
    b = tvm.nd.array(np.zeros((8,)).astype("float32"))
    rt(a, b)
    np.testing.assert_allclose(b.numpy(), np.arange(8) + 1)
