"""Tutorial: introduction to TOPI — the operator inventory as TE, with broadcasting tensor
arithmetic, reductions, softmax and conv2d, built for the CPU and checked against numpy
(and PyTorch for the convolution).  The CUDA schedules of TVM's tutorial are skipped."""

import numpy as np
import pytest

import ember as tvm
from ember import te, topi


def test_lower_with_only_the_input_listed():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    assert "for i, k in T.grid(n, m)" in str(tvm.lower(te.create_schedule(B.op), [A], simple_mode=True))
    C = topi.sum(A, axis=1)
    assert "A_1" in str(tvm.lower(te.create_schedule(C.op), [A], simple_mode=True))
    with pytest.raises(ValueError, match=r"args must list every input tensor; missing \['A'\]"):
        tvm.lower(te.create_schedule(C.op), [C])


def test_broadcast_arithmetic_and_elemwise_sum():
    x, y = 100, 10
    a = te.placeholder((x, y, y), name="a")
    b = te.placeholder((y, y), name="b")
    c = a + b  # same as topi.add
    d = a * b
    e = topi.elemwise_sum([c, d])
    f = e / 2.0
    g = topi.sum(f)
    func = tvm.build(te.create_schedule(g.op), [a, b, g], "llvm")
    rng = np.random.default_rng(0)
    a_np = rng.random((x, y, y), dtype="float32")
    b_np = rng.random((y, y), dtype="float32")
    out = tvm.nd.empty((), "float32")
    func(tvm.nd.array(a_np), tvm.nd.array(b_np), out)
    tvm.testing.assert_allclose(out.numpy(), (((a_np + b_np) + a_np * b_np) / 2).sum(), rtol=1e-4)


def test_elemwise_sum_errors():
    a = te.placeholder((2, 2), name="a")
    with pytest.raises(ValueError, match="non-empty list of tensors"):
        topi.elemwise_sum([])
    with pytest.raises(ValueError, match=r"xs\[1\] has 1 dims, expected 2"):
        topi.elemwise_sum([a, te.placeholder((2,), name="v")])


def test_softmax():
    t = te.placeholder((64, 128), name="t")
    sm = topi.nn.softmax(t)
    func = tvm.build(te.create_schedule(sm.op), [t, sm], "llvm")
    t_np = np.random.default_rng(1).random((64, 128), dtype="float32")
    out = tvm.nd.empty((64, 128), "float32")
    func(tvm.nd.array(t_np), out)
    e = np.exp(t_np - t_np.max(1, keepdims=True))
    tvm.testing.assert_allclose(out.numpy(), e / e.sum(1, keepdims=True), rtol=1e-5)


def test_conv2d_relu_vs_torch():
    torch = pytest.importorskip("torch")
    data = te.placeholder((1, 3, 16, 16), name="data")
    kernel = te.placeholder((10, 3, 5, 5), name="kernel")
    out = topi.nn.relu(topi.nn.conv2d_nchw(data, kernel, 1, 2, 1))
    func = tvm.build(te.create_schedule(out.op), [data, kernel, out], "llvm")
    rng = np.random.default_rng(2)
    d = rng.random((1, 3, 16, 16), dtype="float32")
    w = rng.random((10, 3, 5, 5), dtype="float32")
    res = tvm.nd.empty((1, 10, 16, 16), "float32")
    func(tvm.nd.array(d), tvm.nd.array(w), res)
    ref = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(d), torch.from_numpy(w), padding=2))
    tvm.testing.assert_allclose(res.numpy(), ref.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.skip(reason="not implemented yet: topi.cuda / topi.generic target schedules (CUDA codegen)")
def test_cuda_schedule_reduce():
    with tvm.target.Target("cuda"):
        topi.cuda.schedule_reduce(topi.sum(te.placeholder((4, 4))))
