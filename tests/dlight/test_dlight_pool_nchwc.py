"""dlight.cpu.PoolNCHWc: max and average pooling of channel-blocked data (NCHW{b}c) keep the
program's result for random shapes, windows, strides and padding; results against PyTorch."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import te, topi
from ember.dlight import cpu
from ember.dlight.cpu.common import lanes_for
from ember.target import Target

torch = pytest.importorskip("torch")
TARGET = Target("llvm")
B = lanes_for(TARGET, 32)


def _blocked(x, b):
    n, c, h, w = x.shape
    return np.ascontiguousarray(x.reshape(n, c // b, b, h, w).transpose(0, 1, 3, 4, 2))


def _run(blocks, hw, k, stride, pad, kind, block=B, seed=0):
    c = blocks * block
    x_t = te.placeholder((1, blocks, hw, hw, block), name="X")
    y_t = topi.nn.pool2d(x_t, (k, k), (stride, stride), (1, 1), (pad,) * 4, kind, layout=f"NCHW{block}c",
                         count_include_pad=True)
    sch = cpu.PoolNCHWc().apply(te.create_prim_func([x_t, y_t]), TARGET, False)
    assert sch is not None
    mod = ember.build(sch.mod, target="llvm")
    x = np.random.default_rng(seed).standard_normal((1, c, hw, hw)).astype("float32")
    tx = torch.from_numpy(x)
    ref = (torch.nn.functional.max_pool2d(tx, k, stride, pad) if kind == "max"
           else torch.nn.functional.avg_pool2d(tx, k, stride, pad, count_include_pad=True)).numpy()
    out = np.zeros(_blocked(ref, block).shape, "float32")
    mod(_blocked(x, block), out)
    np.testing.assert_allclose(out, _blocked(ref, block), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("blocks,hw,k,stride,pad,kind", [
    (2, 112, 3, 2, 1, "max"), (1, 13, 3, 2, 0, "max"), (2, 7, 7, 1, 0, "avg"), (1, 9, 3, 1, 1, "avg"),
])
def test_pool_matches_torch(blocks, hw, k, stride, pad, kind):
    _run(blocks, hw, k, stride, pad, kind)


@settings(max_examples=4, deadline=None)
@given(blocks=st.integers(1, 3), hw=st.integers(3, 20), k=st.integers(1, 3), stride=st.integers(1, 2),
       kind=st.sampled_from(["max", "avg"]), half=st.booleans())
def test_random_shapes(blocks, hw, k, stride, kind, half):
    _run(blocks, hw, k, stride, k // 2, kind, block=B // 2 if half else B, seed=hw)
