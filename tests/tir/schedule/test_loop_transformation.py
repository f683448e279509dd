"""split, fuse, reorder, add_unit_loop, loop kinds, bind and annotations."""

import pytest
from sched_helpers import check
from sched_scripts import matmul_16
from sched_workloads import elementwise, matmul, row_sum

from ember.script import tir as T
from ember.tir import For, ForKind, Schedule, ScheduleError


@T.prim_func
def matmul_split_i(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                   C: T.Buffer((16, 16), "float32")):
    for i_0, i_1, j, k in T.grid(4, 4, 16, 16):
        with T.block("C"):
            vi = T.axis.spatial(16, i_0 * 4 + i_1)
            vj = T.axis.spatial(16, j)
            vk = T.axis.reduce(16, k)
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def matmul_split_5(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                   C: T.Buffer((16, 16), "float32")):
    for i_0, i_1, j, k in T.grid(4, 5, 16, 16):
        with T.block("C"):
            vi = T.axis.spatial(16, i_0 * 5 + i_1)
            vj = T.axis.spatial(16, j)
            vk = T.axis.reduce(16, k)
            T.where(i_0 * 5 + i_1 < 16)
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def matmul_fused_ij(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                    C: T.Buffer((16, 16), "float32")):
    for i_j_fused, k in T.grid(256, 16):
        with T.block("C"):
            vi = T.axis.spatial(16, i_j_fused // 16)
            vj = T.axis.spatial(16, i_j_fused % 16)
            vk = T.axis.reduce(16, k)
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def matmul_kij(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
               C: T.Buffer((16, 16), "float32")):
    for k, i, j in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def _sch(func=matmul_16):
    sch = Schedule(func)
    return sch, sch.get_loops(sch.get_block("C"))


def test_split_inferred_factor():
    sch, (i, _, _) = _sch()
    outs = sch.split(i, factors=[None, 4])
    assert [sch.get(x).extent.value for x in outs] == [4, 4]
    check(sch, matmul_16, matmul_split_i)


def test_split_non_divisible_adds_predicate():
    sch, (i, _, _) = _sch()
    sch.split(i, factors=[None, 5])
    check(sch, matmul_16, matmul_split_5)


def test_split_three_ways_and_unit_factor():
    sch, (i, j, _) = _sch()
    sch.split(i, factors=[2, 1, 8], preserve_unit_iters=False)
    sch.split(j, factors=[2, 2, None])
    check(sch, matmul_16)


@pytest.mark.parametrize("factors, message", [
    ([2, 4], "does not cover the extent 16"),
    ([None, None], "at most one None"),
    ([4], "at least 2 factors"),
    ([0, None], "positive integers"),
])
def test_split_errors(factors, message):
    sch, (i, _, _) = _sch()
    with pytest.raises(ScheduleError, match=message) as info:
        sch.split(i, factors=factors)
    assert "# <--- error here" in str(info.value)


def test_split_makes_old_handle_stale():
    sch, (i, _, _) = _sch()
    sch.split(i, factors=[4, 4])
    with pytest.raises(ScheduleError, match="no longer exists"):
        sch.get(i)


def test_fuse():
    sch, (i, j, _) = _sch()
    fused = sch.fuse(i, j)
    assert sch.get(fused).extent.value == 256
    check(sch, matmul_16, matmul_fused_ij)


def test_fuse_then_split_roundtrip_numerics():
    sch, (i, j, k) = _sch(matmul())
    f = sch.fuse(i, j)
    sch.split(f, [None, 7])
    check(sch, matmul())


def test_fuse_non_adjacent_error():
    sch, (i, _, k) = _sch()
    with pytest.raises(ScheduleError, match="adjacent loops"):
        sch.fuse(i, k)


def test_reorder():
    sch, (i, j, k) = _sch()
    sch.reorder(k, i, j)
    check(sch, matmul_16, matmul_kij)


def test_reorder_partial_chain_keeps_other_loops():
    sch, (i, j, k) = _sch(matmul())
    i0, i1 = sch.split(i, [4, 4])
    sch.reorder(k, i1)
    loops = [sch.get(x).loop_var.name for x in sch.get_loops(sch.get_block("C"))]
    assert loops == ["i_0", "k", "j", "i_1"]
    check(sch, matmul())


def test_reorder_non_perfect_nest_error():
    sch = Schedule(elementwise())
    i, j = sch.get_loops(sch.get_block("B"))
    i2, _ = sch.get_loops(sch.get_block("C"))
    with pytest.raises(ScheduleError, match="perfectly nested chain"):
        sch.reorder(i2, j)


def test_reorder_repeated_loop_error():
    sch, (i, j, _) = _sch()
    with pytest.raises(ScheduleError, match="more than once"):
        sch.reorder(i, i)


def test_add_unit_loop():
    sch, (i, _, _) = _sch()
    u = sch.add_unit_loop(sch.get_block("C"))
    assert sch.get(u).extent.value == 1
    u2 = sch.add_unit_loop(i)
    assert isinstance(sch.get(u2).body, For)
    check(sch, matmul_16)


def test_parallel_vectorize_unroll():
    sch, (i, j, k) = _sch()
    sch.parallel(i)
    sch.vectorize(j)
    sch.unroll(k)
    kinds = [sch.get(x).kind for x in (i, j, k)]
    assert kinds == [ForKind.PARALLEL, ForKind.VECTORIZED, ForKind.UNROLLED]
    check(sch, matmul_16)


def test_parallel_reduction_loop_error():
    sch, (_, _, k) = _sch()
    with pytest.raises(ScheduleError, match="reduction iterator 'vk' of block 'C'"):
        sch.parallel(k)
    with pytest.raises(ScheduleError, match="cannot vectorize"):
        sch.vectorize(k)


def test_parallel_loop_carried_dependence_error():
    from ember.ir import Range, Var, const
    from ember.tir import BlockRealize, BufferStore, IterVar, IterVarType, decl_buffer
    from sched_workloads import make_block, nest, prim_func

    A = decl_buffer((16,), "float32", "A")
    i = Var("i")
    blk = make_block("scan", [("S", 15, i)],
                     lambda vi: BufferStore(A, A[vi] + const(1.0, "float32"), (vi + 1,)))
    func = prim_func([A], nest([(i, 15)], blk))
    sch = Schedule(func)
    (loop,) = sch.get_loops(sch.get_block("scan"))
    with pytest.raises(ScheduleError, match="loop-carried dependence"):
        sch.parallel(loop)
    del Range, IterVar, IterVarType, BlockRealize


def test_bind():
    sch, (i, j, k) = _sch()
    sch.bind(i, "blockIdx.x")
    sch.bind(j, "threadIdx.x")
    loop = sch.get(i)
    assert loop.kind == ForKind.THREAD_BINDING and loop.thread_binding.thread_tag == "blockIdx.x"
    check(sch, matmul_16)
    with pytest.raises(ScheduleError, match="thread_axis must be one of"):
        sch.bind(k, "warpIdx.q")
    with pytest.raises(ScheduleError, match="reduction iterator"):
        sch.bind(k, "blockIdx.y")


def test_annotate_and_unannotate():
    sch, (i, _, _) = _sch()
    block = sch.get_block("C")
    sch.annotate(i, "pragma_auto_unroll_max_step", 16)
    sch.annotate(block, "meta_schedule.tiling_structure", "SSRSRS")
    assert sch.get(i).annotations == {"pragma_auto_unroll_max_step": 16}
    assert sch.get(block).annotations["meta_schedule.tiling_structure"] == "SSRSRS"
    sch.unannotate(i, "pragma_auto_unroll_max_step")
    assert sch.get(i).annotations == {}
    check(sch, matmul_16)
    with pytest.raises(ScheduleError, match="has no annotation 'missing'"):
        sch.unannotate(block, "missing")


def test_reduction_workload_split_fuse():
    sch = Schedule(row_sum())
    i, k = sch.get_loops(sch.get_block("B"))
    k0, k1 = sch.split(k, [None, 8])
    sch.reorder(k1, i)
    check(sch, row_sum())


def test_error_marks_the_right_one_of_two_same_named_loops():
    sch = Schedule(elementwise())
    i2, _ = sch.get_loops(sch.get_block("C"))
    sch.annotate(i2, "x", 1)
    with pytest.raises(ScheduleError) as info:
        sch.unannotate(i2, "missing")
    lines = str(info.value).split("\n")
    marked = [k for k, line in enumerate(lines) if "<--- error here" in line]
    assert len(marked) == 1
    block_b = next(k for k, line in enumerate(lines) if 'T.block("B")' in line)
    assert marked[0] > block_b and "for i in" in lines[marked[0]]


def test_reorder_refuses_loops_bound_to_scan_iterators():
    from ember.script import tir as T

    @T.prim_func
    def with_scan(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
        for i, k in T.grid(8, 8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                vk = T.axis.scan(8, k)
                B[vi, vk] = A[vi, vk]

    sch = Schedule(with_scan)
    i, k = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match="bound to the Ordered iterator 'vk'"):
        sch.reorder(k, i)
