"""Tutorial: creating TensorIR (static and symbolic shapes) and transforming it with the
less common primitives — rfactor, cache_read, transform_layout, blockize, storage_align,
annotate, unroll — plus random sampling, trace replay and the trace's JSON form."""

import numpy as np
import pytest

import ember as tvm
from ember.script import tir as T


@T.prim_func
def mm_relu(
    A: T.Buffer((128, 128), "float32"),
    B: T.Buffer((128, 128), "float32"),
    C: T.Buffer((128, 128), "float32"),
):
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


@T.prim_func
def dynamic_add(a: T.handle, b: T.handle, c: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for i in range(n):
        with T.block("C"):
            vi = T.axis.spatial(n, i)
            C[vi] = A[vi] + B[vi]


@pytest.fixture(scope="module")
def mm_data():
    rng = np.random.default_rng(0)
    a = rng.random((128, 128), dtype="float32")
    b = rng.random((128, 128), dtype="float32")
    return a, b, np.maximum(a @ b, 0)


def _check_mm(mod, mm_data):
    a, b, expected = mm_data
    c = tvm.nd.empty((128, 128), "float32")
    tvm.build(mod, target="llvm")(tvm.nd.array(a), tvm.nd.array(b), c)
    tvm.testing.assert_allclose(c.numpy(), expected, rtol=1e-5)


@pytest.mark.parametrize("n", [1, 5, 33])
def test_symbolic_shape_function(n):
    f = tvm.build(dynamic_add, target="llvm")
    a = tvm.nd.array(np.arange(n, dtype="float32"))
    c = tvm.nd.empty((n,), "float32")
    f(a, a, c)
    np.testing.assert_allclose(c.numpy(), 2 * np.arange(n))


def test_rfactor(mm_data):
    sch = tvm.tir.Schedule(mm_relu)
    sch.work_on("main")
    assert len(sch.get_child_blocks(sch.get_block("root"))) == 2
    _, _, k = sch.get_loops(sch.get_block("Y"))
    _, ki = sch.split(k, [None, 4])
    rf = sch.rfactor(ki, 0)
    assert sch.get(rf).name_hint == "Y_rf"
    _check_mm(sch.mod, mm_data)


def test_cache_read_layout_blockize_align(mm_data):
    sch = tvm.tir.Schedule(mm_relu)
    block = sch.get_block("Y")
    a_cache = sch.cache_read(block, 0, "global")  # reads are (A, B): the reduction's output is not one, as in TVM
    sch.transform_layout(block, ("read", 0), lambda i, j: (j // 16, i, j % 16))
    i, j, k = sch.get_loops(block)
    j0, j1 = sch.split(j, [None, 16])
    sch.reorder(i, j0, k, j1)
    outer = sch.blockize(j1)
    sch.annotate(outer, "my_attr", 1)
    sch.unroll(k)
    sch.storage_align(a_cache, 0, axis=0, factor=128, offset=4)
    text = sch.mod.script()
    assert "A_global[vk_o // 16, vi_o, vk_o % 16]" in text and "T.unroll" in text
    _check_mm(sch.mod, mm_data)


def test_sampling_and_trace_replay(mm_data):
    sch = tvm.tir.Schedule(mm_relu, seed=1)
    i, _, _ = sch.get_loops(sch.get_block("Y"))
    factors = sch.sample_perfect_tile(i, n=2)
    values = [int(sch.get(f)) for f in factors]
    assert values[0] * values[1] == 128
    sch.split(i, factors)
    sch.sample_compute_location(sch.get_block("C"))
    choice = sch.sample_categorical([1, 2, 4], [0.2, 0.3, 0.5])
    assert int(sch.get(choice)) in (1, 2, 4)

    replay = tvm.tir.Schedule(mm_relu)
    sch.trace.apply_to_schedule(replay, remove_postproc=False)
    assert tvm.ir.structural_equal(replay.mod, sch.mod)
    insts, decisions = sch.trace.as_json()
    assert insts[0][0] == "GetBlock" and decisions
    _check_mm(replay.mod, mm_data)


@T.prim_func
def dot4_desc(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), "float32", offset_factor=1)
    B = T.match_buffer(b, (4,), "float32", offset_factor=1)
    C = T.match_buffer(c, (1,), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(C[0], A[0:4], B[0:4])
        T.writes(C[0])
        for k in range(4):
            with T.block("update"):
                vk = T.axis.remap("R", [k])
                C[0] = C[0] + A[vk] * B[vk]


@T.prim_func
def dot4_impl(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), "float32", offset_factor=1)
    B = T.match_buffer(b, (4,), "float32", offset_factor=1)
    C = T.match_buffer(c, (1,), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(C[0], A[0:4], B[0:4])
        T.writes(C[0])
        C[0] = C[0] + A[0] * B[0] + A[1] * B[1] + A[2] * B[2] + A[3] * B[3]


@T.prim_func
def matvec(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 16):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk] * B[vk]


def test_tensorize_with_registered_intrinsic():
    tvm.tir.TensorIntrin.register("tutorial_dot4", dot4_desc, dot4_impl, override=True)
    sch = tvm.tir.Schedule(matvec)
    block = sch.get_block("C")
    _, k = sch.get_loops(block)
    ko, ki = sch.split(k, [None, 4])
    sch.decompose_reduction(block, ko)
    sch.tensorize(ki, "tutorial_dot4")
    assert "A_1[3] * B_1[3]" in sch.mod.script()
    rng = np.random.default_rng(3)
    a = rng.random((16, 16), dtype="float32")
    b = rng.random(16, dtype="float32")
    c = tvm.nd.empty((16,), "float32")
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), tvm.nd.array(b), c)
    tvm.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5)
