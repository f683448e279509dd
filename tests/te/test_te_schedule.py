"""The legacy TE schedule adapter (create_schedule, s[C].split …) over tir.Schedule."""

import numpy as np
import pytest

from ember import te, tir
from ember.tir import interpreter


def _matmul(n=16):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda m, j: te.sum(A[m, k] * B[k, j], axis=k), name="C")
    return A, B, C


def _run(func, *arrays):
    interpreter.run(func, *arrays)
    return arrays[-1]


def _data(n=16):
    rng = np.random.default_rng(0)
    return rng.random((n, n), dtype="float32"), rng.random((n, n), dtype="float32")


def _loop_kinds(func):
    kinds = []
    tir.pre_order_visit(func.body, lambda x: kinds.append((x.loop_var.name, x.kind)) if isinstance(x, tir.For) else None)
    return kinds


def test_split_parallel_vectorize():
    A = te.placeholder((32,), name="A")
    B = te.placeholder((32,), name="B")
    C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=8)
    s[C].parallel(xo)
    s[C].vectorize(xi)
    func = s.to_prim_func([A, B, C], name="vadd")
    assert func.attrs["global_symbol"] == "vadd"
    assert [k for _, k in _loop_kinds(func)] == [tir.ForKind.PARALLEL, tir.ForKind.VECTORIZED]
    a, b = np.arange(32, dtype="float32"), np.ones(32, "float32")
    np.testing.assert_array_equal(_run(func, a, b, np.zeros(32, "float32")), a + b)


def test_tile_split_reorder_matmul():
    A, B, C = _matmul()
    s = te.create_schedule(C.op)
    mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], 4, 4)
    (kaxis,) = s[C].op.reduce_axis
    ko, ki = s[C].split(kaxis, factor=4)
    s[C].reorder(mo, no, ko, ki, mi, ni)
    s[C].unroll(ki)
    func = s.to_prim_func([A, B, C])
    assert len(_loop_kinds(func)) == 6
    a, b = _data()
    np.testing.assert_allclose(_run(func, a, b, np.zeros((16, 16), "float32")), a @ b, rtol=1e-5)


def test_fuse_and_nparts():
    A = te.placeholder((4, 6), name="A")
    B = te.compute((4, 6), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    fused = s[B].fuse(*B.op.axis)
    outer, inner = s[B].split(fused, nparts=3)
    assert outer.var.name.endswith(".outer")
    func = s.to_prim_func([A, B])
    a = np.arange(24, dtype="float32").reshape(4, 6)
    np.testing.assert_array_equal(_run(func, a, np.zeros((4, 6), "float32")), a * 2)


def test_cache_write_compute_at():
    A, B, C = _matmul()
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], 4, 4)
    s[CC].compute_at(s[C], no)
    func = s.to_prim_func([A, B, C])
    a, b = _data()
    np.testing.assert_allclose(_run(func, a, b, np.zeros((16, 16), "float32")), a @ b, rtol=1e-5)


def test_compute_at_and_inline():
    A, B, C = _matmul(8)
    D = te.compute((8, 8), lambda i, j: C[i, j] * 2.0, name="D")
    E = te.compute((8, 8), lambda i, j: D[i, j] + 1.0, name="E")
    s = te.create_schedule(E.op)
    s[D].compute_inline()
    s[C].compute_at(s[E], E.op.axis[0])
    func = s.to_prim_func([A, B, E])
    a, b = _data(8)
    np.testing.assert_allclose(_run(func, a, b, np.zeros((8, 8), "float32")), 2 * (a @ b) + 1, rtol=1e-5)


def test_cache_read():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * 3.0, name="B")
    s = te.create_schedule(B.op)
    AA = s.cache_read(A, "local", [B])
    s[AA].compute_at(s[B], B.op.axis[0])
    func = s.to_prim_func([A, B])
    a = np.arange(8, dtype="float32")
    np.testing.assert_array_equal(_run(func, a, np.zeros(8, "float32")), a * 3)


def test_args_order_decides_params():
    A, B, C = _matmul(4)
    s = te.create_schedule(C.op)
    func = s.to_prim_func([B, A, C])
    assert [func.buffer_map[p].name for p in func.params] == ["B", "A", "C"]


def test_errors():
    A, B, C = _matmul(4)
    D = te.compute((4, 4), lambda i, j: A[i, j], name="D")
    s = te.create_schedule(C.op)
    with pytest.raises(ValueError, match="give exactly one of factor= or nparts="):
        s[C].split(C.op.axis[0])
    with pytest.raises(ValueError, match="'i' is not a loop axis of this stage"):
        s[C].split(D.op.axis[0], factor=2)
    with pytest.raises(KeyError, match="schedule has no stage for 'A'"):
        s[A]
    with pytest.raises(ValueError, match=r"args must list every input tensor; missing \['B'\]"):
        s.to_prim_func([A, C])
    with pytest.raises(ValueError, match=r"args\[2\] \(D\) is not an input or output of this schedule"):
        s.to_prim_func([A, B, D])


def test_build_schedule_with_llvm():
    ember = pytest.importorskip("ember")
    A, B, C = _matmul()
    s = te.create_schedule(C.op)
    mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], 4, 4)
    s[C].vectorize(ni)
    s[C].parallel(mo)
    try:
        f = ember.build(s, [A, B, C], target="llvm", name="mmult")
    except ImportError:
        pytest.skip("ember.build (llvm) is not available")
    a, b = _data()
    c = np.zeros((16, 16), "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_opt_gemm_tutorial_flow():
    """The blocking + packing + cache_write schedule of TVM's "How to optimize GEMM"."""
    M = K = N = 16
    bn, kfactor = 8, 4
    k = te.reduce_axis((0, K), "k")
    A = te.placeholder((M, K), name="A")
    B = te.placeholder((K, N), name="B")
    packedB = te.compute((N // bn, K, bn), lambda bigN, k, littleN: B[k, bigN * bn + littleN], name="packedB")
    C = te.compute((M, N), lambda m, n: te.sum(A[m, k] * packedB[n // bn, k, tir.indexmod(n, bn)], axis=k),
                   name="C")
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "global")
    mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)
    s[CC].compute_at(s[C], no)
    mc, nc = s[CC].op.axis
    (kaxis,) = s[CC].op.reduce_axis
    ko, ki = s[CC].split(kaxis, factor=kfactor)
    s[CC].reorder(ko, mc, ki, nc)
    s[CC].vectorize(nc)
    s[CC].unroll(ki)
    bigN, _, littleN = s[packedB].op.axis
    s[packedB].vectorize(littleN)
    s[packedB].parallel(bigN)
    s[C].parallel(mo)
    a, b = _data(16)
    np.testing.assert_allclose(_run(s.to_prim_func([A, B, C]), a, b, np.zeros((16, 16), "float32")), a @ b,
                               rtol=1e-5)


def test_rfactor_reduction_tutorial_flow():
    """TVM's reduction tutorial: split the reduce axis, rfactor, bind, compute_at."""
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    BF = s.rfactor(B, ki)
    assert len(BF.op.axis) == 2 and len(s[B].op.reduce_axis) == 1
    xo, xi = s[B].split(s[B].op.axis[0], factor=4)
    s[B].bind(s[B].op.reduce_axis[0], te.thread_axis("threadIdx.x"))
    s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
    func = s.to_prim_func([A, B])
    a = np.random.default_rng(0).random((8, 32), dtype="float32")
    np.testing.assert_allclose(_run(func, a, np.zeros(8, "float32")), a.sum(1), rtol=1e-5)


def test_multi_output_compute_stage_splits_shared_loops():
    """A data-parallel compute with two outputs lowers to blocks B.v0 / B.v1 under one loop
    nest; its stage splits those shared loops, and block primitives are refused by name."""
    A = te.placeholder((8,), name="A")
    B0, B1 = te.compute((8,), lambda i: (A[i] + 1, A[i] * 2), name="B")
    C = te.compute((8,), lambda i: B0[i] + B1[i], name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[B0].split(B0.op.axis[0], factor=4)
    assert (xo.var.name, xi.var.name) == ("i.outer", "i.inner")
    with pytest.raises(NotImplementedError, match="stage 'B': block primitives"):
        s[B0].compute_inline()
    func = s.to_prim_func([A, C])
    a = np.arange(8, dtype="float32")
    np.testing.assert_allclose(_run(func, a, np.zeros(8, "float32")), (a + 1) + a * 2)
