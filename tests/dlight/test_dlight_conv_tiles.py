"""dlight.cpu.Conv2D register tiles: rows narrower than a vector (7, 14, 28 …) take a
dividing tile instead of a ragged one, and 1x1 stride-1 convolutions tile whole rows of
the fused output plane; results against PyTorch."""

import numpy as np
import pytest

import ember
from ember import te, topi
from ember.dlight import cpu
from ember.dlight.cpu.conv2d import _row_tile, _rows_per_tile
from ember.target import Target

torch = pytest.importorskip("torch")
TARGET = Target("llvm")


@pytest.mark.parametrize("c,hw,f,k,stride", [
    (16, 7, 32, 1, 1), (8, 14, 24, 1, 1), (8, 56, 16, 1, 1), (16, 7, 16, 3, 1), (8, 14, 8, 3, 1),
    (8, 28, 8, 3, 1), (8, 13, 8, 3, 2), (4, 9, 8, 1, 2),
])
def test_conv_tiles_match_torch(c, hw, f, k, stride):
    x_t = te.placeholder((1, c, hw, hw), name="X")
    w_t = te.placeholder((f, c, k, k), name="W")
    y_t = topi.nn.relu(topi.nn.conv2d_nchw(x_t, w_t, stride, k // 2, 1))
    sch = cpu.Conv2D().apply(te.create_prim_func([x_t, w_t, y_t]), TARGET, False)
    assert sch is not None
    mod = ember.build(sch.mod, target="llvm")
    rng = np.random.default_rng(hw * k)
    x = rng.standard_normal((1, c, hw, hw)).astype("float32")
    w = rng.standard_normal((f, c, k, k)).astype("float32")
    ref = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), stride=stride,
                                                padding=k // 2)).numpy()
    out = np.zeros(ref.shape, "float32")
    mod(x, w, out)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_row_tile_choices():
    assert _row_tile(56, 16) == (28, 14)
    assert _row_tile(64, 16) == (32, 16)
    assert _row_tile(7, 16) == (7, 7)
    assert _row_tile(None, 16) == (16, 16)
    assert _rows_per_tile(7, 7, 16) == 1  # 14 or 28 pixels would cut the 7-row plane unevenly
    assert _rows_per_tile(14, 14, 16) == 2
    assert _rows_per_tile(56, 56, 16) == 0
