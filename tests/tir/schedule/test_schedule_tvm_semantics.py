"""Schedule primitives behaving as TVM's do where the exact form of the result matters:
the IR a primitive produces (iterator bindings, names), the errors it raises, and the
arguments it accepts. Each case also checks numerics against the unscheduled function."""

from __future__ import annotations

import numpy as np
import pytest

from ember import tir
from ember.ir import assert_structural_equal
from ember.script import tir as T
from sched_helpers import assert_same_numerics, outputs


def test_q_multiply_shift_per_axis_builds_a_call_of_its_first_argument_dtype():
    x = tir.Var("x", "int32")
    call = tir.q_multiply_shift_per_axis(x, x, x, x, 31, False, True)
    assert call.op.name == "tir.q_multiply_shift_per_axis"
    assert str(call.dtype) == "int32"


@T.prim_func
def scale_16(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] * T.float32(2)


def test_transform_layout_assume_injective_transform_skips_the_injectivity_proof():
    from ember.tir.schedule import ScheduleError

    sch = tir.Schedule(scale_16)
    with pytest.raises(ScheduleError, match="not injective"):
        sch.transform_layout("B", ("write", 0), lambda i: [i // 2])
    # the caller's promise is taken as is (TVM's flag); the trace keeps it for replay
    sch = tir.Schedule(scale_16)
    sch.transform_layout("B", ("write", 0), lambda i: [i // 4, i % 4], assume_injective_transform=True)
    assert "assume_injective_transform=True" in str(sch.trace)
    replayed = tir.Schedule(scale_16)
    sch.trace.apply_to_schedule(replayed)
    assert_structural_equal(replayed.mod, sch.mod)
    a, b = outputs(scale_16), outputs(sch.mod["main"])
    np.testing.assert_allclose(a[1], b[1].reshape(16), rtol=1e-6)


@T.prim_func
def row_sum_128(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128,), "float32")):
    for k, i in T.grid(128, 128):
        with T.block("B"):
            vk, vi = T.axis.remap("RS", [k, i])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def row_sum_128_blockized(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128,), "float32")):
    with T.block("B_o"):
        vk_o = T.axis.reduce(1, 0)
        vi_o = T.axis.spatial(1, 0)
        T.reads(A[0:128, 0:128])
        T.writes(B[0:128])
        with T.init():
            for i_init in range(128):
                with T.block("B_init"):
                    vi_init = T.axis.spatial(128, i_init)
                    B[vi_init] = T.float32(0)
        for k, i in T.grid(128, 128):
            with T.block("B"):
                vk_i, vi_i = T.axis.remap("RS", [k, i])
                B[vi_i] = B[vi_i] + A[vi_i, vk_i]


def test_blockize_gives_every_iterator_an_outer_one_and_moves_the_init_out():
    sch = tir.Schedule(row_sum_128)
    k, _ = sch.get_loops(sch.get_block("B"))
    sch.blockize(k)
    assert_structural_equal(sch.mod["main"].body, row_sum_128_blockized.body)
    assert_same_numerics(row_sum_128, sch.mod["main"])


def test_blockize_drops_inner_iterators_of_extent_one_and_unit_loops_on_request():
    sch = tir.Schedule(scale_16)
    (i,) = sch.get_loops(sch.get_block("B"))
    i0, i1 = sch.split(i, [1, 16])
    sch.blockize(i1, preserve_unit_iters=False)
    text = sch.mod.script()
    assert "vi_o = T.axis.spatial(1, 0)" in text and "vi_i = T.axis.spatial(16, i_1)" in text
    assert_same_numerics(scale_16, sch.mod["main"])


@T.prim_func
def matmul_10(A: T.Buffer((10, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((10, 8), "float32")):
    for i, j, k in T.grid(10, 8, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def test_blockize_keeps_the_inner_predicate_on_the_moved_init():
    sch = tir.Schedule(matmul_10)
    i, _, _ = sch.get_loops(sch.get_block("C"))
    i0, _ = sch.split(i, [None, 4])  # 12 > 10: predicated
    sch.blockize(i0)
    init = sch.get(sch.get_block("C_o")).init
    assert "T.where" in init.script()
    assert_same_numerics(matmul_10, sch.mod["main"])


@T.prim_func
def copy_3d(A: T.Buffer((4, 8, 16), "float32"), B: T.Buffer((4, 8, 16), "float32")):
    for i, j, k in T.grid(4, 8, 16):
        with T.block("B"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk]


def test_fuse_bindings_in_tvm_normal_form_and_split_predicate_in_horner_form():
    sch = tir.Schedule(copy_3d)
    sch.fuse(*sch.get_loops(sch.get_block("B")))
    text = sch.mod.script()
    assert "T.axis.spatial(4, i_j_k_fused // 128)" in text
    assert "T.axis.spatial(8, i_j_k_fused % 128 // 16)" in text
    assert "T.axis.spatial(16, i_j_k_fused % 16)" in text
    assert_same_numerics(copy_3d, sch.mod["main"])
    sch = tir.Schedule(copy_3d)
    _, _, k = sch.get_loops(sch.get_block("B"))
    sch.split(k, [3, 2, 3])
    assert "T.where((k_0 * 2 + k_1) * 3 + k_2 < 16)" in sch.mod.script()
    assert_same_numerics(copy_3d, sch.mod["main"])


@T.prim_func
def copy_annotated(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32")):
    for i in range(8):
        for j in T.serial(16, annotations={"note": 1}):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]


@T.prim_func
def copy_offset(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32")):
    for i in range(8):
        for j in T.serial(2, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]


def test_split_and_fuse_refuse_annotated_or_offset_loops():
    from ember.tir.schedule import ScheduleError

    sch = tir.Schedule(copy_annotated)
    i, j = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match=r"fuse: loop 'j' has annotations \['note'\]"):
        sch.fuse(i, j)
    with pytest.raises(ScheduleError, match="split: loop 'j' has annotations"):
        sch.split(j, [None, 4])
    sch = tir.Schedule(copy_offset)
    i, j = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match="fuse: loop 'j' starts at 2"):
        sch.fuse(i, j)


@T.prim_func
def zero_fill_implicit_offset(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.float32(0)


@T.prim_func
def zero_fill_explicit_offset(a: T.handle):
    A = T.match_buffer(a, (4,), elem_offset=0)
    for i in range(4):
        A[i] = T.float32(0)


def test_buffer_without_elem_offset_equals_one_with_offset_zero():
    from ember.ir import structural_equal, structural_hash

    f = zero_fill_implicit_offset.without_attr("global_symbol")
    g = zero_fill_explicit_offset.without_attr("global_symbol")
    assert structural_equal(f, g) and structural_hash(f) == structural_hash(g)
    h = tir.PrimFunc(g.params, g.body, buffer_map={
        p: tir.decl_buffer((4,), "float32", "A", elem_offset=1) for p in g.params})
    assert not structural_equal(g, h)


@T.prim_func
def two_row_sums(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        for k in range(16):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
        for k in range(16):
            with T.block("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    C[vi] = T.float32(0)
                C[vi] = C[vi] + A[vi, vk] * T.float32(2)


def test_rfactor_runs_the_rf_block_first_under_copied_loops_and_writes_back_in_place():
    sch = tir.Schedule(two_row_sums)
    _, k = sch.get_loops(sch.get_block("B"))
    k0, _ = sch.split(k, [4, 4])
    sch.rfactor(k0, 0)
    body = sch.mod["main"].body.block.body
    # the rf nest precedes the original loop, which keeps both the write-back and block C
    assert [type(s).__name__ for s in body.seq] == ["For", "For"]
    assert "B_rf" in body.seq[0].script() and '"C"' in body.seq[1].script()
    assert_same_numerics(two_row_sums, sch.mod["main"])


def test_rfactor_over_the_only_reduction_loop_makes_a_spatial_rf_block():
    sch = tir.Schedule(row_sum_128)
    k, _ = sch.get_loops(sch.get_block("B"))
    rf = sch.rfactor(k, 0)
    assert sch.get(rf).init is None
    assert_same_numerics(row_sum_128, sch.mod["main"])


@T.prim_func
def row_sum_init_one(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 8):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(1)
            B[vi] = B[vi] + A[vi, vk]


def test_rfactor_refuses_an_init_that_is_not_the_identity():
    from ember.tir.schedule import ScheduleError

    sch = tir.Schedule(row_sum_init_one)
    _, k = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match="is not the identity of its reduction"):
        sch.rfactor(k, 0)


def test_instructions_in_tvm_layout_replay_and_print_as_tvm_does():
    from ember.tir.schedule import BlockRV, Instruction, InstructionKind, LoopRV, Trace

    b0, l1, l2, l3 = BlockRV(), LoopRV(), LoopRV(), LoopRV()
    trace = Trace([
        Instruction(InstructionKind.get("GetBlock"), [], ["B", "main"], [b0]),
        Instruction(InstructionKind.get("GetLoops"), [b0], [], [l1]),
        Instruction(InstructionKind.get("Split"), [l1, None, 4], [True, False], [l2, l3]),  # flattened
        Instruction(InstructionKind.get("Annotate"), [b0, "SSR"], ["note"], []),  # value as an input
    ], {})
    lines = trace.as_python()
    assert lines[2] == ("l2, l3 = sch.split(loop=l1, factors=[None, 4], preserve_unit_iters=True, "
                        "disable_predication=False)")
    assert str(trace).startswith("# from ember import tir\ndef apply_trace(sch: tir.Schedule) -> None:")
    sch = tir.Schedule(scale_16)
    Trace.apply_json_to_schedule(trace.as_json(), sch)
    assert sch.get(sch.get_block("B")).annotations == {"note": "SSR"}
    assert_same_numerics(scale_16, sch.mod["main"])


@T.prim_func
def col_sum_vectorized(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8,), "float32")):
    for k in range(16):
        for i in T.vectorized(8):
            with T.block("B"):
                vk, vi = T.axis.remap("RS", [k, i])
                T.block_attr({"note": 1})
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vk, vi]


def test_decompose_reduction_init_keeps_loop_kinds_and_block_annotations():
    from ember.tir.stmt import ForKind

    sch = tir.Schedule(col_sum_vectorized)
    k, _ = sch.get_loops(sch.get_block("B"))
    init = sch.decompose_reduction(sch.get_block("B"), k)
    (loop,) = sch.get_loops(init)
    assert sch.get(loop).kind == ForKind.VECTORIZED
    assert sch.get(init).annotations == {"note": 1}
    assert_same_numerics(col_sum_vectorized, sch.mod["main"])


@T.prim_func
def strided_binding(A: T.Buffer((16, 128), "float32"), B: T.Buffer((16, 128), "float32")):
    for i, l in T.grid(16, 8):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            vl = T.axis.spatial(128, l * 16)
            B[vi, vl] = A[vi, vl]


@T.prim_func
def dependent_extent(A: T.Buffer((8, 8), "float32")):
    for i in range(8):
        for j in range(i):
            with T.block("A"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi, vj] = T.float32(1)


def test_reorder_refuses_non_affine_bindings_and_dependent_ranges():
    from ember.tir.schedule import ScheduleError

    sch = tir.Schedule(strided_binding)
    i, l = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match="not an affine map of the reordered loops"):
        sch.reorder(l, i)
    sch = tir.Schedule(dependent_extent)
    i, j = sch.get_loops(sch.get_block("A"))
    with pytest.raises(ScheduleError, match="depends on another loop of the nest"):
        sch.reorder(j, i)


def test_storage_align_refuses_a_function_parameter():
    from ember.tir.schedule import ScheduleError

    sch = tir.Schedule(scale_16)
    with pytest.raises(ScheduleError, match="'B' is a parameter of the function"):
        sch.storage_align(sch.get_block("B"), 0, axis=0, factor=8, offset=1)


@T.prim_func
def elem_offset_in_expression(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4,), "int32")):
    with T.block("root"):
        for i in range(4):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                A0 = T.match_buffer(A[vi, 0:4], (4,))
                B[vi] = A0.elem_offset


def test_script_elem_offset_of_a_buffer_without_one_is_zero():
    text = elem_offset_in_expression.script()
    assert "B[vi] = 0" in text


@T.prim_func
def two_producers(B: T.Buffer((8,), "float32")):
    A = T.alloc_buffer((8,))
    for i in range(8):
        with T.block("A0"):
            vi = T.axis.remap("S", [i])
            A[vi] = T.float32(1)
    for i in range(8):
        with T.block("A1"):
            vi = T.axis.remap("S", [i])
            A[vi] = A[vi] + T.float32(2)
    for i in range(8):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi]


def test_cache_read_write_refuse_unknown_scopes_and_several_producers():
    from ember.tir.schedule import ScheduleError

    sch = tir.Schedule(scale_16)
    with pytest.raises(ScheduleError, match="unknown storage scope 'test_scope'"):
        sch.cache_read("B", 0, "test_scope")
    with pytest.raises(ScheduleError, match="unknown storage scope 'test_scope'"):
        sch.cache_write("B", 0, "test_scope")
    sch = tir.Schedule(two_producers)
    with pytest.raises(ScheduleError, match="written by several blocks"):
        sch.cache_read("B", 0, "global")


def test_consumer_blocks_may_be_given_by_name():
    sch = tir.Schedule(scale_16)
    sch.cache_read("B", 0, "local", consumer_blocks=["B"])
    assert_same_numerics(scale_16, sch.mod["main"])


@T.prim_func
def row_sum_squared_index(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 3):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            vk = T.axis.reduce(8, k * k // 2)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


def test_parallel_refuses_blocks_with_non_quasi_affine_bindings():
    from ember.tir.schedule import ScheduleError

    sch = tir.Schedule(row_sum_squared_index)
    i, _ = sch.get_loops(sch.get_block("B"))
    with pytest.raises(ScheduleError, match="not quasi-affine"):
        sch.parallel(i)


def test_get_output_blocks_includes_nested_blocks():
    sch = tir.Schedule(row_sum_128)
    k, _ = sch.get_loops(sch.get_block("B"))
    sch.blockize(k)
    names = [sch.get(b).name_hint for b in sch.get_output_blocks("root")]
    assert names == ["B_o", "B_init", "B"]
