"""TVM tutorial scripts, unchanged except for ``import ember as tvm``, parse and run."""

import numpy as np

import ember as tvm
from ember.ir import assert_structural_equal
from ember.script import tir as T
from ember.tir import interpreter


@tvm.script.ir_module
class BlitzModule:
    @T.prim_func
    def main(a: T.handle, b: T.handle):
        # We exchange data between function by handles, which are similar to pointer.
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        # Create buffer from handles.
        A = T.match_buffer(a, (8,), dtype="float32")
        B = T.match_buffer(b, (8,), dtype="float32")
        for i in range(8):
            # A block is an abstraction for computation.
            with T.block("B"):
                # Define a spatial block iterator and bind it to value i.
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + 1.0


@tvm.script.ir_module
class MMReluModule:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"),
                B: T.Buffer((128, 128), "float32"),
                C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((128, 128), dtype="float32")
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, j)
                vk = T.axis.reduce(128, k)
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, j)
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))


def test_blitz_module(check_roundtrip):
    assert isinstance(BlitzModule, tvm.IRModule)
    a = np.arange(8, dtype="float32")
    b = np.zeros(8, "float32")
    interpreter.run(BlitzModule["main"], a, b)
    np.testing.assert_allclose(b, a + 1)
    assert "B[vi] = A[vi] + T.float32(1.0)" in BlitzModule.script()
    check_roundtrip(BlitzModule)


def test_mm_relu_module_and_schedule(check_roundtrip):
    func = MMReluModule["mm_relu"]
    a, b = np.random.rand(128, 128).astype("float32") - 0.5, np.random.rand(128, 128).astype("float32") - 0.5
    c = np.zeros((128, 128), "float32")
    tvm.build(tvm.IRModule({"mm_relu": func}), target="llvm")["mm_relu"](a, b, c)  # 2M steps: too slow to interpret
    np.testing.assert_allclose(c, np.maximum(a @ b, 0), rtol=1e-4, atol=1e-5)
    check_roundtrip(MMReluModule)
    sch = tvm.tir.Schedule(MMReluModule)
    block_y = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(block_y)
    j0, j1 = sch.split(j, factors=[None, 4])
    sch.reorder(j0, k, j1)
    block_c = sch.get_block("C", "mm_relu")
    sch.reverse_compute_at(block_c, j0)
    text = sch.mod.script()
    assert "for i, j_0 in T.grid(128, 32):\n            for k, j_1 in T.grid(128, 4):" in text and "with T.block(\"C\"):" in text
    assert_structural_equal(sch.mod, tvm.script.from_source(text))
