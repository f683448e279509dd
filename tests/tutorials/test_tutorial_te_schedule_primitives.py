"""Tutorials: schedule primitives in TE, reduction (rfactor), tuple inputs/reducers
(argmax), and intrinsics — legacy ``te.create_schedule`` flows, checked against numpy.
``te.scan``, ``te.extern`` with ``tir.call_packed`` and ``compute_root`` after
``compute_at`` are marked as not implemented yet."""

import numpy as np
import pytest

import ember as tvm
from ember import te


def _elementwise_chain():
    m = te.var("m")
    A = te.placeholder((m,), name="A")
    B = te.compute((m,), lambda i: A[i] + 1, name="B")
    C = te.compute((m,), lambda i: B[i] * 2, name="C")
    return A, B, C


def test_split_tile_fuse_reorder():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((m, n), name="A")
    B = te.placeholder((m, n), name="B")
    C = te.compute((m, n), lambda i, j: A[i, j] * B[i, j], name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], nparts=4)
    assert "T.grid(4," in str(tvm.lower(s, [A, B, C], simple_mode=True))

    s = te.create_schedule(C.op)
    xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], x_factor=10, y_factor=5)
    s[C].fuse(xi, yi)
    s[C].reorder(yo, xo)
    func = tvm.build(s, [A, B, C], "llvm")
    a = np.random.default_rng(0).random((23, 17), dtype="float32")
    c = tvm.nd.empty((23, 17), "float32")
    func(tvm.nd.array(a), tvm.nd.array(a), c)
    tvm.testing.assert_allclose(c.numpy(), a * a, rtol=1e-6)


def test_intermediate_tensor_in_args_and_compute_at():
    A, B, C = _elementwise_chain()
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    text = str(tvm.lower(s, [A, B, C], simple_mode=True))
    assert "B = T.match_buffer" in text
    func = tvm.build(s, [A, B, C], "llvm")
    a = np.arange(5, dtype="float32")
    b, c = tvm.nd.empty((5,), "float32"), tvm.nd.empty((5,), "float32")
    func(tvm.nd.array(a), b, c)
    np.testing.assert_allclose(b.numpy(), a + 1)
    np.testing.assert_allclose(c.numpy(), (a + 1) * 2)


def test_compute_inline():
    A, B, C = _elementwise_chain()
    s = te.create_schedule(C.op)
    s[B].compute_inline()
    with pytest.raises(ValueError, match=r"args\[1\] \(B\): this intermediate tensor is no longer a buffer"):
        tvm.lower(s, [A, B, C])
    func = tvm.build(s, [A, C], "llvm")
    c = tvm.nd.empty((4,), "float32")
    func(tvm.nd.array(np.ones(4, "float32")), c)
    np.testing.assert_allclose(c.numpy(), 4.0)


@pytest.mark.skip(reason="not implemented yet: compute_root after compute_at on the same TE schedule")
def test_compute_root_after_compute_at():
    A, B, C = _elementwise_chain()
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    s[B].compute_root()


def _rfactor_sum(n, m):
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    s.rfactor(B, ki)
    s[B].split(s[B].op.axis[0], factor=32)
    return tvm.build(s, [A, B], "llvm")


def test_reduction_rfactor():
    func = _rfactor_sum(40, 64)
    a = np.random.default_rng(1).random((40, 64), dtype="float32")
    b = tvm.nd.empty((40,), "float32")
    func(tvm.nd.array(a), b)
    tvm.testing.assert_allclose(b.numpy(), a.sum(1), rtol=1e-5)


@pytest.mark.parametrize("m", [50, 7])  # 7 < 16: most rfactor lanes never run a step
def test_reduction_rfactor_symbolic_extent(m):
    func = _rfactor_sum(te.var("n"), te.var("m"))
    a = np.random.default_rng(1).random((40, m), dtype="float32")
    b = tvm.nd.empty((40,), "float32")
    func(tvm.nd.array(a), b)
    tvm.testing.assert_allclose(b.numpy(), a.sum(1), rtol=1e-5)


def test_tuple_reducer_argmax_and_tuple_compute():
    def fcombine(x, y):
        lhs = tvm.tir.Select((x[1] >= y[1]), x[0], y[0])
        rhs = tvm.tir.Select((x[1] >= y[1]), x[1], y[1])
        return lhs, rhs

    def fidentity(t0, t1):
        return tvm.tir.const(-1, t0), tvm.te.min_value(t1)

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    m, n = te.var("m"), te.var("n")
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="int32")
    k = te.reduce_axis((0, n), "k")
    T0, T1 = te.compute((m,), lambda i: argmax((idx[i, k], val[i, k]), axis=k), name="T")
    func = tvm.build(te.create_schedule(T0.op), [idx, val, T0, T1], "llvm")
    rng = np.random.default_rng(2)
    v = rng.permutation(24).astype("int32").reshape(4, 6)
    ix = np.tile(np.arange(6, dtype="int32"), (4, 1))
    o0, o1 = tvm.nd.empty((4,), "int32"), tvm.nd.empty((4,), "int32")
    func(tvm.nd.array(ix), tvm.nd.array(v), o0, o1)
    np.testing.assert_array_equal(o0.numpy(), v.argmax(1))
    np.testing.assert_array_equal(o1.numpy(), v.max(1))

    A0 = te.placeholder((m, n), name="A0")
    A1 = te.placeholder((m, n), name="A1")
    B0, B1 = te.compute((m, n), lambda i, j: (A0[i, j] + 2, A1[i, j] * 3), name="B")
    func = tvm.build(te.create_schedule(B0.op), [A0, A1, B0, B1], "llvm")
    a = np.ones((2, 3), "float32")
    b0, b1 = tvm.nd.empty((2, 3), "float32"), tvm.nd.empty((2, 3), "float32")
    func(tvm.nd.array(a), tvm.nd.array(a), b0, b1)
    np.testing.assert_allclose(b0.numpy(), 3)
    np.testing.assert_allclose(b1.numpy(), 3)


def test_intrinsics_and_extern_math():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute(A.shape, lambda i: te.exp(A[i]), name="B")
    C = te.compute(A.shape, lambda i: tvm.tir.call_pure_extern("float32", "expf", A[i]), name="C")
    D = te.compute(A.shape, lambda i: te.log(A[i]) + te.sqrt(A[i]) + te.sigmoid(A[i]) + te.tanh(A[i]),
                   name="D")
    func = tvm.build(te.create_schedule([B.op, C.op, D.op]), [A, B, C, D], "llvm")
    a = np.random.default_rng(3).random(8, dtype="float32") + 0.5
    b, c, d = (tvm.nd.empty((8,), "float32") for _ in range(3))
    func(tvm.nd.array(a), b, c, d)
    tvm.testing.assert_allclose(b.numpy(), np.exp(a), rtol=1e-5)
    tvm.testing.assert_allclose(c.numpy(), np.exp(a), rtol=1e-5)
    expected = np.log(a) + np.sqrt(a) + 1 / (1 + np.exp(-a)) + np.tanh(a)
    tvm.testing.assert_allclose(d.numpy(), expected, rtol=1e-5)


@pytest.mark.skip(reason="not implemented yet: te.scan (scan and recurrent kernels)")
def test_scan_cumsum():
    m, n = te.var("m"), te.var("n")
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n))
    init = te.compute((1, n), lambda _, i: X[0, i])
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i])
    te.scan(init, update, state, inputs=[X])


@pytest.mark.skip(reason="not implemented yet: tir.call_packed from compiled code (te.extern calling "
                         "a function registered with tvm.register_func)")
def test_extern_calls_registered_function():
    A = te.placeholder((10,), name="A")
    B = te.extern(A.shape, [A], lambda ins, outs: tvm.tir.call_packed("my_addone", ins[0], outs[0]),
                  name="B")
    tvm.build(te.create_schedule(B.op), [A, B], "llvm")
