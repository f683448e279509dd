"""topi.image.resize2d to a symbolic output size: the scale is computed at run time
(float(in) / float(out)), so one kernel serves every size; checked against numpy."""

import numpy as np
import pytest
from test_image_scatter import rand, resize_ref

import ember
from ember import te, tir, topi


@pytest.mark.parametrize("method, mode, rounding", [
    ("nearest_neighbor", "asymmetric", "floor"),
    ("nearest_neighbor", "half_pixel", "round_prefer_ceil"),
    ("linear", "half_pixel", ""),
    ("linear", "align_corners", ""),
])
def test_resize2d_to_a_symbolic_size(method, mode, rounding):
    oh, ow = tir.Var("oh", "int64"), tir.Var("ow", "int64")
    X = te.placeholder((1, 2, 4, 6), name="X")
    out = topi.image.resize2d(X, None, (oh, ow), "NCHW", method, mode, rounding)
    assert out.shape[2] is oh and out.shape[3] is ow
    f = ember.build(te.create_prim_func([X, out]), target="llvm")
    x = rand(1, 2, 4, 6)
    for size in ((8, 3), (5, 7), (1, 1)):
        y = np.zeros((1, 2) + size, "float32")
        f(x, y)
        ref = resize_ref(x, size, method, mode, rounding or ("round" if mode == "align_corners" else "floor"))
        np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
