"""cache_read, cache_write, set_scope, storage_align, transform_layout, IndexMap."""

import pytest
from sched_helpers import check, check_trace_roundtrip, loop_extents, without_attrs
from sched_workloads import elementwise, matmul, matmul_relu

from ember.ir import assert_structural_equal

from ember.script import tir as T
from ember.tir import IndexMap, Schedule, ScheduleError


@T.prim_func
def copy_2x(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def copy_2x_cache_read(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    A_shared = T.alloc_buffer((16, 16), scope="shared")
    for ax0, ax1 in T.grid(16, 16):
        with T.block("A_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            A_shared[v0, v1] = A[v0, v1]
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A_shared[vi, vj] * T.float32(2)


@T.prim_func
def copy_2x_cache_write(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    B_local = T.alloc_buffer((16, 16), scope="local")
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B_local[vi, vj] = A[vi, vj] * T.float32(2)
    for ax0, ax1 in T.grid(16, 16):
        with T.block("B_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            B[v0, v1] = B_local[v0, v1]


@T.prim_func
def copy_2x_relayout(A: T.Buffer((4, 16, 4), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi // 4, vj, vi % 4] * T.float32(2)


def test_cache_read():
    sch = Schedule(copy_2x)
    stage = sch.cache_read(sch.get_block("B"), 0, "shared")
    assert sch.get(stage).name_hint == "A_shared"
    check(sch, copy_2x, copy_2x_cache_read)


def test_cache_write():
    sch = Schedule(copy_2x)
    stage = sch.cache_write(sch.get_block("B"), 0, "local")
    assert sch.get(stage).name_hint == "B_local"
    check(sch, copy_2x, copy_2x_cache_write)


def test_tiled_matmul_with_caches():
    sch = Schedule(matmul())
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    i0, i1 = sch.split(i, [None, 4])
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(i0, j0, i1, j1)
    a = sch.cache_read(block, 0, "shared")  # reads: A, B (C, the output, is only written)
    b = sch.cache_read(block, 1, "local")
    sch.compute_at(a, j0)
    sch.compute_at(b, j0)
    c = sch.cache_write(block, 0, "local")
    sch.reverse_compute_at(c, j0)
    assert loop_extents(sch, a) == [4, 2, 4, 16]
    check(sch, matmul())


def test_cache_read_consumer_subset_and_index_error():
    sch = Schedule(elementwise())
    stage = sch.cache_read(sch.get_block("C"), 0, "local", consumer_blocks=[sch.get_block("C")])
    assert sch.get(stage).name_hint == "B_local"
    check(sch, elementwise())
    with pytest.raises(ScheduleError, match=r"read_buffer_index 3 is out of range .* 0: B_local"):
        sch.cache_read(sch.get_block("C"), 3, "shared")


def test_set_scope():
    sch = Schedule(elementwise())
    sch.set_scope(sch.get_block("B"), 0, "shared")
    assert 'scope="shared"' in sch.mod.script()
    check(sch, elementwise())
    with pytest.raises(ScheduleError, match="is a function parameter"):
        sch.set_scope(sch.get_block("C"), 0, "shared")


def test_storage_align():
    sch = Schedule(elementwise())
    sch.storage_align(sch.get_block("B"), 0, axis=0, factor=16, offset=1)
    assert sch.get(sch.get_block("B")).annotations["buffer_dim_align"] == [[0, 0, 16, 1]]
    sch.storage_align(sch.get_block("B"), 0, axis=0, factor=32, offset=3)  # replaces, as TVM
    assert sch.get(sch.get_block("B")).annotations["buffer_dim_align"] == [[0, 0, 32, 3]]
    check(sch, elementwise())
    with pytest.raises(ScheduleError, match="axis 2 is out of range"):
        sch.storage_align(sch.get_block("B"), 0, axis=2, factor=16, offset=1)


def test_transform_layout_of_parameter():
    sch = Schedule(copy_2x)
    sch.transform_layout(sch.get_block("B"), ("read", 0), lambda i, j: (i // 4, j, i % 4))
    assert_structural_equal(without_attrs(sch.mod["main"]), without_attrs(copy_2x_relayout))
    check_trace_roundtrip(sch, copy_2x)


def test_transform_layout_intermediate_by_name_and_padding():
    sch = Schedule(elementwise())
    sch.transform_layout(sch.get_block("B"), "B", lambda i, j: (j, i))
    check(sch, elementwise())
    sch = Schedule(elementwise())
    sch.transform_layout(sch.get_block("B"), ("write", 0), lambda i, j: (i // 5, j, i % 5), pad_value=0.0)
    assert "T.alloc_buffer((4, 16, 5))" in sch.mod.script()
    assert sch.get(sch.get_block("B_pad")) is not None
    check(sch, elementwise())


def test_transform_layout_errors():
    sch = Schedule(elementwise())
    with pytest.raises(ScheduleError, match="accesses no buffer named 'Q'"):
        sch.transform_layout(sch.get_block("B"), "Q", lambda i, j: (j, i))
    with pytest.raises(ScheduleError, match="has no write buffer 4"):
        sch.transform_layout(sch.get_block("B"), ("write", 4), lambda i, j: (j, i))


def test_transform_block_layout():
    sch = Schedule(elementwise())
    sch.transform_block_layout(sch.get_block("C"), lambda i, j: (i * 16 + j,))
    assert len(sch.get_loops(sch.get_block("C"))) == 1
    check(sch, elementwise())
    sch = Schedule(elementwise())
    sch.transform_block_layout(sch.get_block("B"), lambda i, j: (j, i))
    check(sch, elementwise())


def test_transform_block_layout_errors():
    sch = Schedule(elementwise())
    with pytest.raises(ScheduleError, match="must be bijective"):
        sch.transform_block_layout(sch.get_block("C"), lambda i, j: (i, j, i % 2))
    i, _ = sch.get_loops(sch.get_block("C"))
    sch.split(i, [4, 4])
    with pytest.raises(ScheduleError, match="trivial bindings"):
        sch.transform_block_layout(sch.get_block("C"), lambda i, j: (j, i))


def test_index_map_basics():
    m = IndexMap.from_func(lambda i, j: (i // 16, j, i % 16))
    shape = m.map_shape([64, 8])
    assert [int(s) for s in shape] == [4, 8, 16]
    inv = m.inverse([64, 8])
    from ember.ir import const

    idx = m.map_indices([const(37), const(5)])
    assert [int(x) for x in idx] == [2, 5, 5]
    back = inv.map_indices(idx)
    assert [int(x) for x in back] == [37, 5]
    again = IndexMap.from_python(m.to_python())
    assert [int(x) for x in again.map_indices([const(37), const(5)])] == [2, 5, 5]
    with pytest.raises(ValueError, match="cannot invert"):
        IndexMap.from_func(lambda i, j: (i + j,)).inverse([4, 4])
    with pytest.raises(TypeError, match="expects a callable"):
        IndexMap.from_func(3)


def test_cache_read_of_own_output_error():
    sch = Schedule(matmul())
    block = sch.get_block("C")
    sch.decompose_reduction(block, sch.get_loops(block)[0])
    update = sch.get_block("C_update")
    assert sch.get(update).reads[0].buffer.name == "C"  # without its init, the update reads C
    with pytest.raises(ScheduleError, match="also writes 'C'"):
        sch.cache_read(update, 0, "local")


def test_cache_write_after_decompose_error():
    sch = Schedule(matmul())
    block = sch.get_block("C")
    sch.decompose_reduction(block, sch.get_loops(block)[0])
    with pytest.raises(ScheduleError, match=r"also written by block\(s\) \['C_init'\]"):
        sch.cache_write(block, 0, "local")


def _relu_under_the_matmul_rows():
    """matmul_relu with the relu block D moved under the matmul's (i, j) loops."""
    sch = Schedule(matmul_relu())
    sch.reverse_compute_at(sch.get_block("D"), sch.get_loops(sch.get_block("C"))[1])
    return sch


def test_cache_write_and_read_inside_fused_nest():
    sch = _relu_under_the_matmul_rows()
    stage = sch.cache_write(sch.get_block("C"), 0, "local")
    # as TVM: the write-back goes into the (i, j) nest, over unit loops of the copied 1x1 region
    assert len(sch.get_loops(stage)) == 4
    check(sch, matmul_relu())
    sch = _relu_under_the_matmul_rows()
    stage = sch.cache_read(sch.get_block("D"), 0, "local")
    assert len(sch.get_loops(stage)) == 4
    check(sch, matmul_relu())


@T.prim_func
def transpose_2x(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 16), "float32")):
    for i, j in T.grid(8, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vj, vi] * T.float32(2)


@T.prim_func
def transpose_2x_reindex(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 16), "float32")):
    A_reindex = T.alloc_buffer((8, 16))
    for ax0, ax1 in T.grid(8, 16):
        with T.block("A_reindex"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            A_reindex[v0, v1] = A[v1, v0]
    for i, j in T.grid(8, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A_reindex[vi, vj] * T.float32(2)


def test_reindex_read():
    sch = Schedule(transpose_2x)
    stage = sch.reindex(sch.get_block("B"), ("read", 0))
    assert sch.get(stage).name_hint == "A_reindex"
    check(sch, transpose_2x, transpose_2x_reindex)


def test_reindex_matmul_operands_and_output():
    sch = Schedule(matmul())
    block = sch.get_block("C")
    for spec in (("read", 0), ("read", 1), ("write", 0)):
        sch.reindex(block, spec)
    from ember.tir.buffer import BufferLoad
    from ember.tir.functor import collect

    body = sch.get(block).body
    assert body.buffer.name == "C_reindex"
    assert {n.buffer.name for n in collect(body, lambda x: isinstance(x, BufferLoad))} == {
        "C_reindex", "A_reindex", "B_reindex"}
    check(sch, matmul())
    with pytest.raises(ScheduleError, match="accesses no buffer named 'A'"):
        sch.reindex(block, "A")  # A is now read through A_reindex
    with pytest.raises(ScheduleError, match=r"reindex: buffer must be \('read' \| 'write', index\)"):
        sch.reindex(block, 3)
    with pytest.raises(ScheduleError, match="out of range"):
        sch.reindex(block, ("read", 2))


def test_reindex_guarded_access_error():
    from sched_workloads import conv2d

    sch = Schedule(conv2d())
    with pytest.raises(ScheduleError, match="may fall outside the buffer"):
        sch.reindex(sch.get_block("Apad"), ("read", 0))


def test_set_axis_separator():
    sch = Schedule(elementwise())
    sch.set_axis_separator(sch.get_block("B"), ("write", 0), [1])
    assert sch.get(sch.get_block("B")).writes[0].buffer.axis_separators == (1,)
    check(sch, elementwise())
    with pytest.raises(ScheduleError, match=r"axis_separators must be increasing positions in \(0, 2\)"):
        sch.set_axis_separator(sch.get_block("B"), ("write", 0), [2])


def test_reindex_write_after_decompose_error():
    sch = Schedule(matmul())
    block = sch.get_block("C")
    sch.decompose_reduction(block, sch.get_loops(block)[0])
    with pytest.raises(ScheduleError, match="a write reindex needs the block to be its only writer"):
        sch.reindex(block, ("write", 0))


def test_buffers_named_by_name_or_object():
    sch = Schedule(matmul())
    block = sch.get_block("C")
    a = sch.cache_read(block, "A", "shared")
    assert sch.get(a).name_hint == "A_shared"
    b_buf = sch.get(block).reads[1].buffer
    assert sch.get(sch.cache_read(block, b_buf, "local")).name_hint == "B_local"
    c = sch.cache_write(block, "C", "local")
    assert sch.get(c).name_hint == "C_local"
    assert "read_buffer_index=0," in str(sch.trace)  # the trace records the index
    check(sch, matmul())
    with pytest.raises(ScheduleError, match="is a read buffer of block 'C', expected a write buffer"):
        sch.cache_write(block, "A_shared", "local")
    with pytest.raises(ScheduleError, match="accesses no buffer named 'D'"):
        sch.cache_read(block, "D", "local")


def test_transform_layout_with_axis_separator():
    sch = Schedule(copy_2x)
    block = sch.get_block("B")
    sch.transform_layout(block, ("write", 0), lambda i, j: [j, IndexMap.AXIS_SEPARATOR, i])
    buf = sch.get(block).writes[0].buffer
    assert tuple(buf.axis_separators) == (1,)
    kinds = [inst.kind.name for inst in sch.trace.insts]
    assert kinds[-2:] == ["TransformLayout", "SetAxisSeparator"]
    imap, seps = IndexMap.from_func_with_separators(lambda i, j: [i, IndexMap.AXIS_SEPARATOR, j])
    assert seps == [1] and len(imap.final_indices) == 2


def test_set_scope_checks_the_scope_name():
    sch = Schedule(elementwise())
    with pytest.raises(ScheduleError, match="unknown storage scope 'test_scope'"):
        sch.set_scope(sch.get_block("B"), 0, "test_scope")
    sch.set_scope(sch.get_block("B"), 0, "shared.dyn")
    assert sch.get(sch.get_block("B")).writes[0].buffer.scope() == "shared.dyn"


@T.prim_func
def grouped_read(A: T.Buffer((T.int64(4), 6), "float32"), B: T.Buffer((T.int64(4), 8, 6), "float32")):
    for i, co, c in T.grid(T.int64(4), 8, 6):
        with T.block("B"):
            vi, vco, vc = T.axis.remap("SSS", [i, co, c])
            B[vi, vco, vc] = A[vi, vco // 8 * 6 + vc] * T.float32(3)


def test_reindex_simplifies_the_access_within_the_iterator_domains():
    sch = Schedule(grouped_read)
    stage = sch.reindex(sch.get_block("B"), ("read", 0))
    cache = sch.get(sch.get_block("B")).reads[0].buffer
    # vco // 8 is 0 for vco < 8: the copy is indexed by (vi, vc) only, not by vco
    assert [int(s) for s in cache.shape] == [4, 6]
    loops = sch.get_loops(stage)
    assert [str(sch.get(x).loop_var.dtype) for x in loops] == ["int64", "int32"]
    check(sch, grouped_read)


def test_index_map_keyword_only_and_var_args():
    imap = IndexMap.from_func(lambda *rest, k: [*rest, k // 4, k % 4], ndim=3)
    assert imap.ndim == 3 and len(imap.final_indices) == 4
    assert [str(v) for v in imap.initial_indices] == ["rest_0", "rest_1", "k"]


def test_index_map_shape_of_a_symbolic_fusion():
    from ember import tir

    n = tir.Var("n", "int64")
    imap = IndexMap.from_func(lambda a, b: [a * n + b], index_dtype="int64")
    (extent,) = imap.map_shape([tir.IntImm("int64", 32), n])
    assert str(extent) in ("n * T.int64(32)", "T.int64(32) * n")
    assert imap.is_bijective_on([tir.IntImm("int64", 32), n])


@T.prim_func
def tiled_add(A: T.Buffer((8, 8, 4, 4), "float32"), C: T.Buffer((32, 32), "float32")):
    for io, jo in T.grid(8, 8):
        with T.block("C_o"):
            vio, vjo = T.axis.remap("SS", [io, jo])
            for ii, ji in T.grid(4, 4):
                with T.block("C"):
                    vii, vji = T.axis.remap("SS", [ii, ji])
                    C[vio * 4 + vii, vjo * 4 + vji] = A[vio, vjo, vii, vji] + T.float32(1)


def test_transform_layout_simplifies_within_iterator_ranges():
    sch = Schedule(tiled_add)
    sch.transform_layout("C", ("read", 0), lambda a, b, c, d: (a * 4 + c, b * 4 + d))
    text = sch.mod["main"].script()
    assert "A[vio * 4 + vii, vjo * 4 + vji]" in text and "//" not in text
    check_trace_roundtrip(sch, tiled_add)


@T.prim_func
def flat_int64(A: T.Buffer((T.int64(8), T.int64(4)), "float32"), B: T.Buffer((T.int64(8), T.int64(4)), "float32")):
    for i, j in T.grid(T.int64(8), T.int64(4)):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


def test_transform_block_layout_keeps_int64_iterators():
    sch = Schedule(flat_int64)
    sch.transform_block_layout("B", lambda i, j: (i * 4 + j,))
    (loop,) = sch.get_loops("B")
    assert str(sch.get(loop).loop_var.dtype) == "int64"
    assert str(sch.get(sch.get_block("B")).iter_vars[0].var.dtype) == "int64"
    check(sch, flat_int64)


@T.prim_func
def min_then_scale_in_one_loop(A: T.Buffer((3,), "float32"), E: T.Buffer((1,), "float32")):
    R = T.alloc_buffer((1,))
    for i0 in range(1):
        for ax0 in range(3):
            with T.block("R"):
                v_i0 = T.axis.spatial(1, 0)
                v_r = T.axis.reduce(3, ax0)
                with T.init():
                    R[v_i0] = T.float32("inf")
                R[v_i0] = T.min(R[v_i0], A[v_r])
        with T.block("E"):
            v_i0 = T.axis.spatial(1, i0)
            E[v_i0] = R[0] * T.float32(3.0)


def test_reindex_a_constant_read_in_the_producers_loop_makes_a_scalar_stage():
    # R[0] uses no iterator of E: the reindex buffer is 0-d, and moving its stage into the loop
    # that also produces R bounds a region with no dimension (it crashed); found by the fuzzer
    sch = Schedule(min_then_scale_in_one_loop)
    stage = sch.reindex(sch.get_block("E"), ("read", 0))
    assert sch.get(stage).writes[0].buffer.shape == ()
    check(sch, min_then_scale_in_one_loop)


@T.prim_func
def int64_stage_read_by_int32_loops(A: T.Buffer((T.int64(8), T.int64(4)), "float32"),
                                    C: T.Buffer((8, 4), "float32")):
    B = T.alloc_buffer((T.int64(8), T.int64(4)))
    for i, j in T.grid(T.int64(8), T.int64(4)):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(8, 4):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1.0)


def test_transform_layout_casts_int32_indices_of_an_int64_buffer_to_the_maps_type():
    # C's int32 iterators index the int64-shaped B: mapped as they were, v // T.int64(2) mixed
    # i32 and i64 (the printed script parsed back with a cast); found by the schedule fuzzer
    from ember.ir import FloorDiv, FloorMod
    from ember.script import from_source
    from ember.tir.functor import collect

    sch = Schedule(int64_stage_read_by_int32_loops)
    sch.transform_layout(sch.get_block("B"), ("write", 0), lambda a, b: (b, a // 2, a % 2))
    func = sch.mod["main"]
    ops = collect(func.body, lambda n: isinstance(n, FloorDiv | FloorMod))
    assert ops and all(str(op.a.dtype) == str(op.b.dtype) == "int64" for op in ops)
    assert_structural_equal(from_source(func.script()), func)
    check(sch, int64_stage_read_by_int32_loops)
