"""CompactBufferAllocation (TVM's pass): buffers shrink where they are allocated."""

import numpy as np
from tir_lower_builders import as_mod, run_llvm

from ember import tir
from ember.ir import assert_structural_equal
from ember.script import tir as T
from ember.tir.transform import CompactBufferAllocation, compact_buffer_allocation


@T.prim_func
def row_stage(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i in range(16):
        with T.block():
            T.reads(A[i, 0:16])
            T.writes(C[i, 0:16])
            B = T.alloc_buffer((16, 16), "float32")
            for j in range(16):
                with T.block():
                    T.reads(A[i, j])
                    T.writes(B[i, j])
                    B[i, j] = A[i, j] + T.float32(1)
            for j in range(16):
                with T.block():
                    T.reads(B[i, j])
                    T.writes(C[i, j])
                    C[i, j] = B[i, j] * T.float32(2)


@T.prim_func
def row_stage_compacted(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i in range(16):
        with T.block():
            T.reads(A[i, 0:16])
            T.writes(C[i, 0:16])
            B = T.alloc_buffer((1, 16), "float32")
            for j in range(16):
                with T.block():
                    T.reads(A[i, j])
                    T.writes(B[0, j])
                    B[0, j] = A[i, j] + T.float32(1)
            for j in range(16):
                with T.block():
                    T.reads(B[0, j])
                    T.writes(C[i, j])
                    C[i, j] = B[0, j] * T.float32(2)


@T.prim_func
def branch_halves(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.decl_buffer((8, 8), "float32")
    for i, j in T.grid(8, 8):
        if i < 4:
            B[i, j] = A[i, j]
        else:
            C[i, j] = A[i, j]
    for i, j in T.grid(4, 8):
        C[i, j] = B[i, j] + T.float32(1)


@T.prim_func
def shared_by_threads(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(8, thread="threadIdx.x"):
            with T.block():
                B = T.alloc_buffer((16, 16), "float32", scope="shared")
                for j in range(16):
                    with T.block():
                        B[bx * 8 + tx, j] = A[bx * 8 + tx, j]
                for j in range(16):
                    with T.block():
                        C[bx * 8 + tx, j] = B[bx * 8 + tx, j]


def _compact(func, **kw):
    return CompactBufferAllocation(**kw)(as_mod(func))["main"]


def _allocated_shapes(func):
    shapes = []

    def visit(node):
        if isinstance(node, tir.Block):
            shapes.extend([int(s) for s in b.shape] for b in node.alloc_buffers)
        elif isinstance(node, tir.Allocate):
            shapes.append([int(e) for e in node.extents])

    tir.stmt_functor.post_order_visit(func.body, visit)
    return shapes


def test_block_buffer_shrinks_to_one_row_in_place():
    after = _compact(row_stage)
    assert_structural_equal(after.body, row_stage_compacted.body, map_free_vars=True)
    assert _allocated_shapes(after) == [[1, 16]]


def test_branch_condition_limits_the_region():
    after = _compact(branch_halves)
    assert _allocated_shapes(after) == [[4, 8]]
    a = np.random.default_rng(0).uniform(size=(8, 8)).astype("float32")
    c0, c1 = np.zeros((8, 8), "float32"), np.zeros((8, 8), "float32")
    want = run_llvm(branch_halves, a, c0)[1]
    got = run_llvm(after, a, c1)[1]
    np.testing.assert_allclose(got, want)


def test_shared_memory_spans_the_threads_of_a_block():
    after = _compact(shared_by_threads)
    assert _allocated_shapes(after) == [[8, 16]]  # blockIdx stays symbolic, threadIdx relaxed


def test_compacted_program_gives_the_same_result():
    after = _compact(row_stage)
    a = np.random.default_rng(1).uniform(size=(16, 16)).astype("float32")
    want = run_llvm(row_stage, a, np.zeros((16, 16), "float32"))[1]
    got = run_llvm(after, a, np.zeros((16, 16), "float32"))[1]
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(got, (a + 1) * 2, rtol=1e-6)


def test_opaque_use_of_the_data_pointer_keeps_the_buffer():
    @T.prim_func
    def opaque(A: T.Buffer((16,), "float32")):
        B = T.alloc_buffer((16,), "float32")
        for i in range(4):
            with T.block():
                T.reads([])
                T.writes([])
                T.evaluate(T.call_extern("use", B.data, dtype="int32"))
                B[i] = A[i]

    assert _allocated_shapes(_compact(opaque)) == [[16]]


def test_lowering_pipeline_still_moves_and_compacts():
    lowered = tir.transform.LowerOpaqueBlock()(as_mod(row_stage))["main"]
    moved = compact_buffer_allocation(lowered)
    assert _allocated_shapes(moved) == [[1, 16]]
