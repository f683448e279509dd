"""dlight.cpu.DepthwiseConv2DPacked: depthwise convolutions over a pre-packed weight
(channel-blocked padded input, channel vectors × pixel tiles) keep the program's result for
random shapes, strides and epilogues; results against PyTorch."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import te, topi
from ember.dlight import cpu
from ember.relax.transform.pack_conv_weights import conv2d_nchw_packed, pack_oihw
from ember.target import Target

torch = pytest.importorskip("torch")
TARGET = Target("llvm")


def _run(c, hw, k, stride, pad, block, residual, seed):
    x_t = te.placeholder((1, c, hw, hw), name="X")
    w_t = te.placeholder((c // block, 1, k, k, block), name="W")
    b_t = te.placeholder((1, c, 1, 1), name="B")
    y_t = topi.add(conv2d_nchw_packed(x_t, w_t, (stride, stride), (pad,) * 4, (1, 1), "float32", depthwise=True), b_t)
    ins = [x_t, w_t, b_t]
    if residual:
        r_t = te.placeholder(tuple(int(d) for d in y_t.shape), name="R")
        y_t = topi.add(y_t, r_t)
        ins.append(r_t)
    y_t = topi.clip(y_t, 0.0, 6.0)
    sch = cpu.DepthwiseConv2DPacked().apply(te.create_prim_func([*ins, y_t]), TARGET, False)
    assert sch is not None
    mod = ember.build(sch.mod, target="llvm")
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, c, hw, hw)).astype("float32")
    w = rng.standard_normal((c, 1, k, k)).astype("float32")
    b = rng.standard_normal((1, c, 1, 1)).astype("float32")
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), stride=stride, padding=pad,
                                     groups=c).numpy() + b
    args = [x, pack_oihw(w, block), b]
    if residual:
        r = rng.standard_normal(ref.shape).astype("float32")
        ref = ref + r
        args.append(r)
    ref = np.clip(ref, 0, 6)
    out = np.zeros(ref.shape, "float32")
    mod(*args, out)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("c,hw,k,stride,block,residual", [
    (32, 14, 3, 1, 16, True), (48, 15, 3, 2, 16, False), (16, 7, 5, 2, 8, False), (24, 9, 3, 1, 8, True),
])
def test_depthwise_matches_torch(c, hw, k, stride, block, residual):
    _run(c, hw, k, stride, k // 2, block, residual, seed=c + hw)


@settings(max_examples=3, deadline=None)
@given(blocks=st.integers(1, 3), hw=st.integers(2, 18), k=st.sampled_from([3, 5]), stride=st.integers(1, 2),
       block=st.sampled_from([8, 16]), residual=st.booleans())
def test_depthwise_random_shapes(blocks, hw, k, stride, block, residual):
    _run(blocks * block, hw, k, stride, k // 2, block, residual, seed=hw * k)


def test_declines_without_padding():
    x_t = te.placeholder((1, 16, 8, 8), name="X")
    w_t = te.placeholder((1, 1, 3, 3, 16), name="W")
    y_t = conv2d_nchw_packed(x_t, w_t, (1, 1), (0, 0, 0, 0), (1, 1), "float32", depthwise=True)
    assert cpu.DepthwiseConv2DPacked().apply(te.create_prim_func([x_t, w_t, y_t]), TARGET, False) is None
