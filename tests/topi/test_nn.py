"""topi.nn operators vs numpy references."""

import math

import numpy as np
import pytest
from nn_ref import adaptive_pool2d, conv_nd, pool2d
from topi_eval import evaluate, rand

from ember import te, topi


def test_relu_leaky_prelu():
    A = te.placeholder((2, 3), name="A")
    S = te.placeholder((3,), name="S")
    a, s = rand(2, 3), rand(3, seed=9)
    r, lk, pr = evaluate([A, S], [topi.nn.relu(A), topi.nn.leaky_relu(A, 0.1), topi.nn.prelu(A, S, 1)], [a, s])
    np.testing.assert_array_equal(r, np.maximum(a, 0))
    np.testing.assert_allclose(lk, np.where(a > 0, a, 0.1 * a), rtol=1e-6)
    np.testing.assert_allclose(pr, np.where(a > 0, a, a * s), rtol=1e-6)


def test_gelu_silu():
    A = te.placeholder((6,), name="A")
    a = rand(6, low=-3, high=3)
    erf = np.vectorize(math.erf)
    g, gt, si = evaluate([A], [topi.nn.gelu(A), topi.nn.gelu_tanh(A), topi.nn.silu(A)], [a])
    np.testing.assert_allclose(g, 0.5 * a * (1 + erf(a / np.sqrt(2))), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gt, 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a**3))),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(si, a / (1 + np.exp(-a)), rtol=1e-5)


@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_log_softmax(axis):
    A = te.placeholder((3, 5), name="A")
    a = rand(3, 5, low=-4, high=4)
    sm, lsm = evaluate([A], [topi.nn.softmax(A, axis), topi.nn.log_softmax(A, axis)], [a])
    e = np.exp(a - a.max(axis, keepdims=True))
    ref = e / e.sum(axis, keepdims=True)
    np.testing.assert_allclose(sm, ref, rtol=1e-5)
    np.testing.assert_allclose(lsm, np.log(ref), rtol=1e-5, atol=1e-6)


def test_softmax_block_names():
    A = te.placeholder((2, 4), name="A")
    out = topi.nn.softmax(A)
    func = te.create_prim_func([A, out])
    names = []
    from ember import tir

    tir.pre_order_visit(func.body, lambda x: names.append(x.name_hint) if isinstance(x, tir.Block) else None)
    assert names == ["root", "T_softmax_maxelem", "T_softmax_exp", "T_softmax_expsum", "T_softmax_norm"]


def test_dense_matmul_batch_matmul():
    X = te.placeholder((3, 4), name="X")
    W = te.placeholder((5, 4), name="W")
    Bias = te.placeholder((5,), name="Bias")
    x, w, b = rand(3, 4), rand(5, 4, seed=1), rand(5, seed=2)
    d, db = evaluate([X, W, Bias], [topi.nn.dense(X, W), topi.nn.dense(X, W, Bias)], [x, w, b])
    np.testing.assert_allclose(d, x @ w.T, rtol=1e-5)
    np.testing.assert_allclose(db, x @ w.T + b, rtol=1e-5)
    Y = te.placeholder((4, 5), name="Y")
    y = rand(4, 5, seed=3)
    mm, mt = evaluate([X, Y], [topi.nn.matmul(X, Y), topi.nn.matmul(Y, X, transpose_a=True, transpose_b=True)],
                      [x, y])
    np.testing.assert_allclose(mm, x @ y, rtol=1e-5)
    np.testing.assert_allclose(mt, y.T @ x.T, rtol=1e-5)
    P = te.placeholder((2, 3, 4), name="P")
    Q = te.placeholder((1, 5, 4), name="Q")
    p, q = rand(2, 3, 4), rand(1, 5, 4, seed=4)
    bm = evaluate([P, Q], topi.nn.batch_matmul(P, Q), [p, q])
    np.testing.assert_allclose(bm, p @ q.transpose(0, 2, 1), rtol=1e-5)
    with pytest.raises(ValueError, match=r"reduction extents differ \(4 vs 5\)"):
        topi.nn.matmul(X, W)


def test_dense_int8_accumulates_int32():
    X = te.placeholder((2, 3), name="X", dtype="int8")
    W = te.placeholder((4, 3), name="W", dtype="int8")
    x, w = rand(2, 3, dtype="int8"), rand(4, 3, dtype="int8", seed=1)
    out = topi.nn.dense(X, W, out_dtype="int32")
    assert str(out.dtype) == "int32"
    np.testing.assert_array_equal(evaluate([X, W], out, [x, w]), x.astype("int32") @ w.T.astype("int32"))


@pytest.mark.parametrize("stride,padding,dilation,groups", [
    (1, 0, 1, 1), (2, 1, 1, 1), (1, (1, 2), 2, 1), (1, 1, 1, 2), (2, "SAME", 1, 1),
])
def test_conv2d_nchw(stride, padding, dilation, groups):
    X = te.placeholder((1, 4, 7, 6), name="X")
    W = te.placeholder((4, 4 // groups, 3, 3), name="W")
    x, w = rand(1, 4, 7, 6), rand(4, 4 // groups, 3, 3, seed=1)
    out = topi.nn.conv2d(X, W, stride, padding, dilation, groups=groups)
    from ember.topi.nn import get_pad_tuple

    dk = (3 - 1) * dilation + 1
    pt, pl, pb, pr = get_pad_tuple(padding, (dk, dk))
    ref = conv_nd(x, w, (stride,) * 2, (pt, pl), (pb, pr), (dilation,) * 2, groups)
    got = evaluate([X, W], out, [x, w])
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)


def test_conv2d_names_follow_tvm():
    X = te.placeholder((1, 2, 5, 5), name="X")
    W = te.placeholder((3, 2, 3, 3), name="W")
    out = topi.nn.conv2d_nchw(X, W, 1, 1, 1)
    assert out.op.name == "conv2d_nchw" and out.op.input_tensors[0].op.name == "pad_temp"
    assert [iv.var.name for iv in out.op.axis] == ["nn", "ff", "yy", "xx"]
    assert [iv.var.name for iv in out.op.reduce_axis] == ["rc", "ry", "rx"]


def test_conv1d_conv3d_depthwise_nhwc():
    X = te.placeholder((2, 3, 9), name="X")
    K = te.placeholder((4, 3, 3), name="K")
    x, k = rand(2, 3, 9), rand(4, 3, 3, seed=1)
    got = evaluate([X, K], topi.nn.conv1d(X, K, 2, 1, 1), [x, k])
    np.testing.assert_allclose(got, conv_nd(x, k, (2,), (1,), (1,), (1,)), rtol=1e-4, atol=1e-5)
    X3 = te.placeholder((1, 2, 4, 4, 4), name="X3")
    K3 = te.placeholder((2, 2, 2, 2, 2), name="K3")
    x3, k3 = rand(1, 2, 4, 4, 4), rand(2, 2, 2, 2, 2, seed=2)
    got = evaluate([X3, K3], topi.nn.conv3d_ncdhw(X3, K3, 1, 0, 1), [x3, k3])
    np.testing.assert_allclose(got, conv_nd(x3, k3, (1,) * 3, (0,) * 3, (0,) * 3, (1,) * 3), rtol=1e-4, atol=1e-5)
    XD = te.placeholder((1, 3, 5, 5), name="XD")
    KD = te.placeholder((3, 2, 3, 3), name="KD")
    xd, kd = rand(1, 3, 5, 5), rand(3, 2, 3, 3, seed=3)
    got = evaluate([XD, KD], topi.nn.depthwise_conv2d_nchw(XD, KD, 1, 1, 1), [xd, kd])
    ref = conv_nd(xd, kd.reshape(6, 1, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1), groups=3)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)
    XN = te.placeholder((1, 5, 5, 2), name="XN")
    KN = te.placeholder((3, 3, 2, 4), name="KN")
    xn, kn = rand(1, 5, 5, 2), rand(3, 3, 2, 4, seed=4)
    got = evaluate([XN, KN], topi.nn.conv2d(XN, KN, 1, 1, 1, data_layout="NHWC"), [xn, kn])
    ref = conv_nd(xn.transpose(0, 3, 1, 2), kn.transpose(3, 2, 0, 1), (1, 1), (1, 1), (1, 1), (1, 1))
    np.testing.assert_allclose(got, ref.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-5)


def test_conv_errors():
    X = te.placeholder((1, 4, 5, 5), name="X")
    W = te.placeholder((4, 3, 3, 3), name="W")
    with pytest.raises(ValueError, match="data has 4 channels but kernel expects 3 x groups=1"):
        topi.nn.conv2d(X, W, 1, 0, 1)
    with pytest.raises(ValueError, match="data_layout must be 'NCHW' or 'NHWC'"):
        topi.nn.conv2d(X, W, 1, 0, 1, data_layout="HWCN")


@pytest.mark.parametrize("pool_type", ["max", "avg"])
@pytest.mark.parametrize("kernel,stride,dilation,pad,ceil_mode,include", [
    ((2, 2), (2, 2), (1, 1), (0, 0, 0, 0), False, True),
    ((3, 3), (2, 2), (1, 1), (1, 1, 1, 1), False, False),
    ((3, 3), (2, 2), (1, 1), (1, 1, 1, 1), False, True),
    ((3, 2), (2, 2), (1, 1), (0, 0, 0, 0), True, True),
    ((2, 2), (1, 1), (2, 2), (1, 0, 1, 0), False, False),
])
def test_pool2d(pool_type, kernel, stride, dilation, pad, ceil_mode, include):
    X = te.placeholder((1, 2, 6, 7), name="X")
    x = rand(1, 2, 6, 7)
    out = topi.nn.pool2d(X, kernel, stride, dilation, pad, pool_type, ceil_mode, "NCHW", include)
    ref = pool2d(x, kernel, stride, dilation, pad, pool_type, ceil_mode, include)
    got = evaluate([X], out, [x])
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pool_type", ["max", "avg"])
def test_adaptive_and_global_pool(pool_type):
    X = te.placeholder((1, 2, 7, 5), name="X")
    x = rand(1, 2, 7, 5)
    ad, gl = evaluate([X], [topi.nn.adaptive_pool(X, (3, 2), pool_type), topi.nn.global_pool(X, pool_type)], [x])
    np.testing.assert_allclose(ad, adaptive_pool2d(x, (3, 2), pool_type), rtol=1e-5)
    np.testing.assert_allclose(gl, adaptive_pool2d(x, (1, 1), pool_type), rtol=1e-5)


def test_pool_errors():
    X = te.placeholder((1, 2, 4, 4), name="X")
    with pytest.raises(ValueError, match="pool_type must be 'max' or 'avg', got 'sum'"):
        topi.nn.pool2d(X, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "sum")
    with pytest.raises(ValueError, match="layout 'NCW' is not a supported 2-D pooling layout"):
        topi.nn.pool2d(X, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "max", layout="NCW")


def test_pad():
    X = te.placeholder((2, 3), name="X")
    x = rand(2, 3)
    got = evaluate([X], topi.nn.pad(X, (1, 0), (0, 2), pad_value=5.0), [x])
    np.testing.assert_array_equal(got, np.pad(x, ((1, 0), (0, 2)), constant_values=5.0))
    with pytest.raises(ValueError, match=r"need 2 entries \(one per dimension\), got 1 and 1"):
        topi.nn.pad(X, (1,), (1,))


def test_layer_norm_rms_norm_group_norm():
    X = te.placeholder((2, 3, 4), name="X")
    G = te.placeholder((3, 4), name="G")
    B = te.placeholder((3, 4), name="B")
    x, g, b = rand(2, 3, 4), rand(3, 4, seed=1), rand(3, 4, seed=2)
    ln, rn = evaluate([X, G, B], [topi.nn.layer_norm(X, G, B, (1, 2)), topi.nn.rms_norm(X, G, (1, 2))], [x, g, b])
    mean, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(ln, (x - mean) / np.sqrt(var + 1e-5) * g + b, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(rn, x / np.sqrt((x * x).mean((1, 2), keepdims=True) + 1e-5) * g, rtol=1e-4)
    XG = te.placeholder((2, 4, 3), name="XG")
    GG = te.placeholder((4,), name="GG")
    BG = te.placeholder((4,), name="BG")
    xg, gg, bg = rand(2, 4, 3), rand(4, seed=3), rand(4, seed=4)
    got = evaluate([XG, GG, BG], topi.nn.group_norm(XG, GG, BG, 2, 1, [2]), [xg, gg, bg])
    r = xg.reshape(2, 2, 2, 3)
    norm = (r - r.mean((2, 3), keepdims=True)) / np.sqrt(r.var((2, 3), keepdims=True) + 1e-5)
    np.testing.assert_allclose(got, norm.reshape(2, 4, 3) * gg[:, None] + bg[:, None], rtol=1e-4, atol=1e-5)


def test_batch_norm_inference():
    X = te.placeholder((2, 3, 2, 2), name="X")
    params = [te.placeholder((3,), name=n) for n in ("gamma", "beta", "mean", "var")]
    out, mm, mv = topi.nn.batch_norm(X, *params)
    x = rand(2, 3, 2, 2)
    g, b, m = rand(3, seed=1), rand(3, seed=2), rand(3, seed=3)
    v = rand(3, seed=4, low=0.5, high=1.5)
    got, got_m, got_v = evaluate([X, *params], [out, mm, mv], [x, g, b, m, v])
    np.testing.assert_array_equal(got_m, m)
    np.testing.assert_array_equal(got_v, v)
    c = (slice(None), None, None)
    np.testing.assert_allclose(got, (x - m[c]) / np.sqrt(v[c] + 1e-5) * g[c] + b[c], rtol=1e-4, atol=1e-5)


def test_topi_testing_references_agree():
    from ember.topi import testing

    X = te.placeholder((1, 4, 6, 6), name="X")
    W = te.placeholder((4, 2, 3, 3), name="W")
    x, w = rand(1, 4, 6, 6), rand(4, 2, 3, 3, seed=1)
    got = evaluate([X, W], topi.nn.conv2d(X, W, 2, (1, 0, 0, 1), 1, groups=2), [x, w])
    np.testing.assert_allclose(got, testing.conv2d_nchw_python(x, w, 2, (1, 0, 0, 1), groups=2), rtol=1e-4, atol=1e-5)
    A = te.placeholder((2, 5), name="A")
    a = rand(2, 5)
    sm, lsm = evaluate([A], [topi.nn.softmax(A, 1), topi.nn.log_softmax(A, 1)], [a])
    np.testing.assert_allclose(sm, testing.softmax_python(a), rtol=1e-5)
    np.testing.assert_allclose(lsm, testing.log_softmax_python(a), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(testing.dilate_python(np.ones((2, 2)), (2, 1)), [[1, 1], [0, 0], [1, 1]])
