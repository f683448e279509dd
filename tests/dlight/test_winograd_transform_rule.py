"""dlight.cpu.WinogradTransform: the Winograd input / output transforms scheduled (parallel
tiles, unrolled positions, vectorised channel block) and still computing B^T d B and A^T M A
(checked against numpy einsums)."""

import numpy as np
import pytest

import ember as tvm
from ember import te
from ember.dlight.cpu import WinogradTransform
from ember.tir import For, ForKind
from ember.topi.nn.winograd import winograd_input_transform, winograd_matrices, winograd_output_transform

TARGET = "llvm -mcpu=skylake-avx512 -num-cores=2"


def _loop_kinds(func):
    kinds = []

    def visit(node):
        if isinstance(node, For):
            kinds.append(node.kind)

    tvm.tir.stmt_functor.post_order_visit(func.body, visit)
    return kinds


def _schedule(func):
    sch = WinogradTransform().apply(func, tvm.target.Target(TARGET), False)
    assert sch is not None
    return sch.mod["main"]


@pytest.mark.parametrize("m, h, w, pad", [(2, 6, 6, 1), (4, 7, 9, 1), (4, 10, 10, 0)])
def test_input_transform(m, h, w, pad):
    cb = 16
    d = te.placeholder((1, 2, h, w, cb), name="d")
    v = winograd_input_transform(d, m, (pad,) * 4)
    func = _schedule(te.create_prim_func([d, v]))
    kinds = _loop_kinds(func)
    assert ForKind.PARALLEL in kinds and ForKind.VECTORIZED in kinds and ForKind.UNROLLED in kinds
    lib = tvm.build(func, target="llvm")
    rng = np.random.default_rng(m + h)
    data = rng.standard_normal((1, 2, h, w, cb)).astype("float32")
    out = tvm.nd.array(np.zeros([int(s) for s in v.shape], "float32"))
    lib(tvm.nd.array(data), out)
    _, bt, _ = winograd_matrices(m)
    alpha = m + 2
    nchw = data.transpose(0, 1, 4, 2, 3).reshape(1, 2 * cb, h, w)
    th, tw = -(-(h + 2 * pad - 2) // m), -(-(w + 2 * pad - 2) // m)
    padded = np.zeros((2 * cb, th * m + 2, tw * m + 2))
    padded[:, pad:pad + h, pad:pad + w] = nchw[0]
    ref = np.zeros((alpha, alpha, th * tw, 2 * cb))
    for ty in range(th):
        for tx in range(tw):
            tile = padded[:, ty * m:ty * m + alpha, tx * m:tx * m + alpha]
            ref[:, :, ty * tw + tx, :] = np.einsum("ai,cij,bj->abc", bt, tile, bt)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("rows_outside", [1.0, 0.0])
def test_output_transform_with_relu_epilogue(rows_outside, monkeypatch):
    monkeypatch.setattr(WinogradTransform, "rows_outside_channels", rows_outside)
    m, oh, ow, kb, block = 4, 7, 6, 2, 16
    alpha = m + 2
    th, tw = -(-oh // m), -(-ow // m)
    prod = te.placeholder((alpha, alpha, th * tw, kb * block), name="M")
    y = winograd_output_transform(prod, m, (1, kb, oh, ow, block), block)
    relu = te.compute(y.shape, lambda *i: tvm.tir.max(y(*i), tvm.tir.const(0.0, "float32")), name="relu")
    func = _schedule(te.create_prim_func([prod, relu]))
    kinds = _loop_kinds(func)
    assert ForKind.PARALLEL in kinds and ForKind.VECTORIZED in kinds and ForKind.UNROLLED in kinds
    lib = tvm.build(func, target="llvm")
    rng = np.random.default_rng(3)
    mval = rng.standard_normal([int(s) for s in prod.shape]).astype("float32")
    out = tvm.nd.array(np.zeros((1, kb, oh, ow, block), "float32"))
    lib(tvm.nd.array(mval), out)
    at, _, _ = winograd_matrices(m)
    full = np.einsum("ya,abtk,xb->tyxk", at, mval.astype(np.float64), at)  # (tiles, m, m, K)
    img = full.reshape(th, tw, m, m, kb * block).transpose(0, 2, 1, 3, 4).reshape(th * m, tw * m, kb * block)
    ref = np.maximum(img[:oh, :ow], 0).reshape(oh, ow, kb, block).transpose(2, 0, 1, 3)[None]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5)


def test_other_functions_declined():
    a = te.placeholder((64,), name="a")
    b = te.compute((64,), lambda i: a[i] + 1.0, name="b")
    assert WinogradTransform().apply(te.create_prim_func([a, b]), tvm.target.Target(TARGET), False) is None
