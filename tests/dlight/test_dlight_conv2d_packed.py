"""dlight.cpu.Conv2DPacked: convolutions over a pre-packed weight (channel vectors × pixel
tiles) keep the program's result for random shapes, strides, paddings and epilogues;
results against PyTorch."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import te, topi
from ember.dlight import cpu
from ember.dlight.cpu.conv2d_packed import _tile
from ember.relax.transform.pack_conv_weights import conv2d_nchw_packed, pack_oihw
from ember.target import Target

torch = pytest.importorskip("torch")
TARGET = Target("llvm")


def _run(c, hw, f, k, stride, pad, block, residual, seed):
    x_t = te.placeholder((1, c, hw, hw), name="X")
    w_t = te.placeholder((f // block, c, k, k, block), name="W")
    s_t = te.placeholder((1, f, 1, 1), name="S")
    y_t = topi.multiply(conv2d_nchw_packed(x_t, w_t, (stride, stride), (pad,) * 4, (1, 1), "float32"), s_t)
    ins = [x_t, w_t, s_t]
    if residual:
        r_t = te.placeholder(tuple(int(d) for d in y_t.shape), name="R")
        y_t = topi.add(y_t, r_t)
        ins.append(r_t)
    y_t = topi.nn.relu(y_t)
    sch = cpu.Conv2DPacked().apply(te.create_prim_func([*ins, y_t]), TARGET, False)
    assert sch is not None
    mod = ember.build(sch.mod, target="llvm")
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, c, hw, hw)).astype("float32")
    w = rng.standard_normal((f, c, k, k)).astype("float32")
    s = rng.standard_normal((1, f, 1, 1)).astype("float32")
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), stride=stride, padding=pad).numpy() * s
    args = [x, pack_oihw(w, block), s]
    if residual:
        r = rng.standard_normal(ref.shape).astype("float32")
        ref = ref + r
        args.append(r)
    ref = np.maximum(ref, 0)
    out = np.zeros(ref.shape, "float32")
    mod(*args, out)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("c,hw,f,k,stride,pad,block,residual", [
    (16, 7, 32, 1, 1, 0, 16, True), (8, 14, 64, 3, 1, 1, 16, False), (3, 23, 16, 7, 2, 3, 16, False),
    (8, 13, 16, 3, 2, 1, 16, True), (4, 9, 24, 1, 2, 0, 8, False), (5, 6, 8, 3, 1, 0, 8, True),
    (3, 23, 64, 3, 2, 0, 16, True),  # a first layer: 11-pixel rows in guarded 4-pixel tiles
])
def test_packed_conv_matches_torch(c, hw, f, k, stride, pad, block, residual):
    _run(c, hw, f, k, stride, pad, block, residual, seed=hw * k)


@settings(max_examples=4, deadline=None)
@given(c=st.integers(1, 12), hw=st.integers(1, 20), blocks=st.integers(1, 5), k=st.sampled_from([1, 3, 5]),
       stride=st.integers(1, 3), block=st.sampled_from([8, 16]), residual=st.booleans())
def test_packed_conv_random_shapes(c, hw, blocks, k, stride, block, residual):
    pad = k // 2
    if hw + 2 * pad < k:
        return
    _run(c, hw, blocks * block, k, stride, pad, block, residual, seed=c * hw + k)


def test_tile_fits_registers():
    for width in (112, 56, 28, 14, 7, 5, 1):
        for channels in (16, 64, 256):
            fr, xr = _tile(channels, width, 16, 32)
            assert width % xr == 0 and channels % (16 * fr) == 0
            assert fr * xr + fr + xr <= 30
    assert _tile(256, 56, 16, 32) == (4, 4)
    assert _tile(256, 7, 16, 32) == (2, 7)
    assert _tile(64, 111, 16, 32) == (4, 3)  # dividing tiles only
    assert _tile(64, 111, 16, 32, ragged=True) == (4, 4)  # 4-pixel tiles, the last one guarded
