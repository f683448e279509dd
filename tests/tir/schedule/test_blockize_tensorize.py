"""blockize, tensorize and the TensorIntrin registry."""

import pytest
from sched_helpers import check
from sched_workloads import matmul, row_sum

from ember.ir import Ramp
from ember.script import tir as T
from ember.tir import Schedule, ScheduleError, TensorIntrin
from ember.tir.functor import collect


def test_blockize_inner_reduction_loop_moves_init_outward():
    sch = Schedule(matmul(8, 32, 8))
    _, _, k = sch.get_loops(sch.get_block("C"))
    _, k1 = sch.split(k, [None, 4])
    outer = sch.blockize(k1)
    block = sch.get(outer)
    assert block.name_hint == "C_o" and block.init is not None
    assert sch.get(sch.get_block("C")).init is None
    check(sch, matmul(8, 32, 8))


def test_blockize_spatial_loop_of_a_reduction_moves_init_outward():
    # as in TVM: every reduction iterator gets an outer iterator (extent 1 here), so the
    # outer block is a reduction and owns the init, as a "C_init" block over the inner loops
    sch = Schedule(matmul(8, 8, 8))
    i, _, _ = sch.get_loops(sch.get_block("C"))
    _, i1 = sch.split(i, [None, 4])
    outer = sch.blockize(i1)
    assert sch.get(outer).init is not None and sch.get(sch.get_block("C")).init is None
    assert sch.get(sch.get_block("C_init")).iter_vars
    check(sch, matmul(8, 8, 8))


def test_blockize_errors():
    from sched_workloads import elementwise

    sch = Schedule(elementwise())
    sch.compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("C"))[0])
    i = sch.get_loops(sch.get_block("C"))[0]
    with pytest.raises(ScheduleError, match="must contain exactly one block, found 2"):
        sch.blockize(i)


def test_tensorize_axpy_intrinsic():
    func = matmul(8, 32, 8)
    sch = Schedule(func)
    i, j, k = sch.get_loops(sch.get_block("C"))
    j0, j1 = sch.split(j, [None, 16])
    sch.reorder(i, j0, k, j1)
    sch.tensorize(j1, "ember_f32_axpy_16")
    block = sch.get(sch.get_block("C_o"))
    assert len(block.match_buffers) == 3
    assert collect(block.body, lambda n: isinstance(n, Ramp))
    check(sch, func)


def test_tensorize_after_decompose():
    func = matmul(4, 32, 4)
    sch = Schedule(func)
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    j0, j1 = sch.split(j, [None, 16])
    sch.reorder(i, j0, k, j1)
    sch.decompose_reduction(block, i)
    sch.tensorize(j1, "ember_f32_axpy_16")
    check(sch, func)


def test_tensorize_mismatch_errors():
    sch = Schedule(row_sum(8, 32))
    _, k = sch.get_loops(sch.get_block("B"))
    _, k1 = sch.split(k, [None, 16])
    with pytest.raises(ScheduleError, match="does not match the description"):
        sch.tensorize(k1, "ember_f32_axpy_16")
    sch = Schedule(matmul(8, 32, 8))
    i, j, k = sch.get_loops(sch.get_block("C"))
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(i, j0, k, j1)
    with pytest.raises(ScheduleError, match=r"loop \(min 0, extent 8\) differs from the description's"):
        sch.tensorize(j1, "ember_f32_axpy_16")


def test_tensor_intrin_registry():
    intrin = TensorIntrin.get("ember_f32_axpy_16")
    assert "ember_f32_axpy_16" in TensorIntrin.list_names()
    with pytest.raises(ValueError, match="already registered"):
        TensorIntrin.register("ember_f32_axpy_16", intrin.desc, intrin.impl)
    TensorIntrin.register("ember_f32_axpy_16", intrin.desc, intrin.impl, override=True)
    assert TensorIntrin.get("nope", allow_missing=True) is None
    with pytest.raises(ValueError, match="no TensorIntrin named 'nope'"):
        TensorIntrin.get("nope")
    with pytest.raises(TypeError, match="must be PrimFuncs"):
        TensorIntrin.register("bad", 1, 2)


@T.prim_func
def dot_product_4_desc(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4,), offset_factor=1)
    B = T.match_buffer(b, (4,), offset_factor=1)
    C = T.match_buffer(c, (1,), offset_factor=1)
    with T.block("root"):
        T.reads(C[0], A[0:4], B[0:4])
        T.writes(C[0])
        for i in range(4):
            with T.block("update"):
                vi = T.axis.remap("R", [i])
                C[0] = C[0] + A[vi] * B[vi]


@T.prim_func
def dot_product_4_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4,), offset_factor=1)
    B = T.match_buffer(b, (4,), offset_factor=1)
    C = T.match_buffer(c, (1,), offset_factor=1)
    with T.block("root"):
        T.reads(C[0], A[0:4], B[0:4])
        T.writes(C[0])
        C[0] = C[0] + T.call_extern("float32", "dot4", A.data, B.data)


@T.prim_func
def matvec(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 16):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk] * B[vk]


def test_tensorize_with_tvmscript_intrinsic():
    from sched_helpers import check_trace_roundtrip

    TensorIntrin.register("test_dot_product_4", dot_product_4_desc, dot_product_4_impl, override=True)
    sch = Schedule(matvec)
    _, k = sch.get_loops(sch.get_block("C"))
    k0, k1 = sch.split(k, [None, 4])
    sch.decompose_reduction(sch.get_block("C"), k0)
    sch.tensorize(k1, "test_dot_product_4")
    text = sch.mod.script()
    assert 'T.call_extern("float32", "dot4", A_1.data, B_1.data)' in text
    assert "T.match_buffer(A[vi_o, vk_o * 4:vk_o * 4 + 4], (4,)" in text
    check_trace_roundtrip(sch, matvec)


@T.prim_func
def add_one(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)


@T.prim_func
def add_one_blockized(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j_0 in T.grid(16, 4):
        with T.block("B_o"):
            vi_o, vj_o = T.axis.remap("SS", [i, j_0])
            T.reads(A[vi_o, vj_o * 4:vj_o * 4 + 4])
            T.writes(B[vi_o, vj_o * 4:vj_o * 4 + 4])
            for j_1 in range(4):
                with T.block("B"):  # TVM's form: the inner block iterates only its own part
                    vj_i = T.axis.spatial(4, j_1)
                    B[vi_o, vj_o * 4 + vj_i] = A[vi_o, vj_o * 4 + vj_i] + T.float32(1)


def test_blockize_expected_ir():
    from sched_helpers import check as check_all

    sch = Schedule(add_one)
    _, j = sch.get_loops(sch.get_block("B"))
    _, j1 = sch.split(j, [None, 4])
    sch.blockize(j1)
    check_all(sch, add_one, add_one_blockized)


@T.prim_func
def matmul_bt(A: T.Buffer((4, 4), "float32"), B: T.Buffer((32, 4), "float32"), C: T.Buffer((4, 32), "float32")):
    for i, j, k in T.grid(4, 32, 4):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]


def test_tensorize_non_contiguous_region_error():
    sch = Schedule(matmul_bt)
    i, j, k = sch.get_loops(sch.get_block("C"))
    j0, j1 = sch.split(j, [None, 16])
    sch.reorder(i, j0, k, j1)
    with pytest.raises(ScheduleError, match="the region of 'B' .* is not contiguous"):
        sch.tensorize(j1, "ember_f32_axpy_16")


def test_failed_tensorize_leaves_the_schedule_unchanged():
    sch = Schedule(matmul_bt)
    i, j, k = sch.get_loops(sch.get_block("C"))
    j0, j1 = sch.split(j, [None, 16])
    sch.reorder(i, j0, k, j1)
    before = sch.mod
    with pytest.raises(ScheduleError):
        sch.tensorize(j1, "ember_f32_axpy_16")
    assert sch.mod is before


@T.prim_func
def matmul_reversed_b(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 32), "float32"),
                      C: T.Buffer((4, 32), "float32")):
    for i, j, k in T.grid(4, 32, 4):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, 31 - vj]


def test_tensorize_checks_indices():
    sch = Schedule(matmul_reversed_b)
    i, j, k = sch.get_loops(sch.get_block("C"))
    j0, j1 = sch.split(j, [None, 16])
    sch.reorder(i, j0, k, j1)
    with pytest.raises(ScheduleError, match=r"the access B\[.*\] does not correspond to B\[vj\]"):
        sch.tensorize(j1, "ember_f32_axpy_16")


@T.prim_func
def add_int64_inputs(A: T.Buffer((T.int64(2), T.int64(2), T.int64(6)), "float32"),
                     B: T.Buffer((T.int64(6),), "float32"), C: T.Buffer((2, 2, 6), "float32")):
    for i0, i1, i2 in T.grid(2, 2, 6):
        with T.block("C"):
            v0, v1, v2 = T.axis.remap("SSS", [i0, i1, i2])
            C[v0, v1, v2] = A[v0, v1, v2] + B[v2]


def test_blockize_a_loop_whose_block_indexes_through_a_cast():
    # the cache stage of an int64-shaped input has int64 loops; the int32 output inlined into
    # it indexes C (and B) by casts of them, which blockize's region relaxation goes through
    # (it crashed on bounds=None; a symbolic cast range raised BoundError)
    sch = Schedule(add_int64_inputs)
    sch.cache_read(sch.get_block("C"), 0, "local")
    sch.reverse_compute_inline(sch.get_block("C"))
    _, _, inner = sch.get_loops(sch.get_block("A_local"))
    outer = sch.blockize(inner)
    assert sch.get(outer).name_hint == "A_local_o"
    check(sch, add_int64_inputs)


def test_region_relaxation_through_an_index_cast_stays_symbolic():
    from ember.ir import Cast, Var, const
    from ember.tir.schedule._arith import as_int, relax_bound, simplify
    from ember.tir.functor import substitute

    x, i = Var("x", "int64"), Var("i", "int64")
    lo, hi = relax_bound(Cast("int32", x) * 2, {x: (i * 4, i * 4 + 3)})
    at_2 = {i: const(2, "int64")}
    assert [as_int(simplify(substitute(e, at_2))) for e in (lo, hi)] == [16, 22]
