"""topi.image.resize2d, gather_nd, scatter_elements, mirror_pad, depth_to_space / space_to_depth."""

import numpy as np
import pytest
from topi_eval import evaluate, rand

from ember import te, topi

f32 = np.float32


def _coord(o, n_in, n_out, mode):
    scale = f32(n_in / n_out)
    o = f32(o)
    if mode == "half_pixel":
        return (o + f32(0.5)) * scale - f32(0.5)
    if mode == "pytorch_half_pixel":
        return f32(0) if n_out == 1 else (o + f32(0.5)) * scale - f32(0.5)
    if mode == "align_corners":
        return f32(0) if n_out == 1 else o * f32((n_in - 1) / (n_out - 1))
    if mode == "asymmetric":
        return o * scale
    return (o + f32(0.5)) * scale


def resize_ref(x, size, method, mode, rounding):
    N, C, H, W = x.shape
    out = np.zeros((N, C, *size), x.dtype)
    rnd = {"floor": np.floor, "ceil": np.ceil, "round": np.rint,
           "round_prefer_floor": lambda v: np.ceil(v - f32(0.5)),
           "round_prefer_ceil": lambda v: np.floor(v + f32(0.5))}
    for oy in range(size[0]):
        for ox in range(size[1]):
            cy, cx = _coord(oy, H, size[0], mode), _coord(ox, W, size[1], mode)
            if method == "nearest_neighbor":
                iy = int(np.clip(rnd[rounding](cy), 0, H - 1))
                ix = int(np.clip(rnd[rounding](cx), 0, W - 1))
                out[:, :, oy, ox] = x[:, :, iy, ix]
            else:
                y0, x0 = np.floor(cy), np.floor(cx)
                fy, fx = cy - y0, cx - x0
                y0, x0 = int(y0), int(x0)
                ys = [np.clip(y0, 0, H - 1), np.clip(y0 + 1, 0, H - 1)]
                xs = [np.clip(x0, 0, W - 1), np.clip(x0 + 1, 0, W - 1)]
                out[:, :, oy, ox] = (x[:, :, ys[0], xs[0]] * (1 - fy) * (1 - fx) + x[:, :, ys[0], xs[1]] * (1 - fy) * fx
                                     + x[:, :, ys[1], xs[0]] * fy * (1 - fx) + x[:, :, ys[1], xs[1]] * fy * fx)
    return out


@pytest.mark.parametrize("method,mode,rounding", [
    ("linear", "half_pixel", ""), ("linear", "align_corners", ""), ("linear", "asymmetric", ""),
    ("linear", "pytorch_half_pixel", ""), ("nearest_neighbor", "asymmetric", "floor"),
    ("nearest_neighbor", "half_pixel", "round_prefer_ceil"), ("nearest_neighbor", "align_corners", "round"),
    ("nearest_neighbor", "tf_half_pixel_for_nn", "floor"),
])
@pytest.mark.parametrize("size", [(7, 3), (2, 9)])
def test_resize2d(method, mode, rounding, size):
    X = te.placeholder((1, 2, 4, 6), name="X")
    x = rand(1, 2, 4, 6)
    out = topi.image.resize2d(X, None, size, "NCHW", method, mode, rounding)
    ref = resize_ref(x, size, method, mode, rounding or ("round" if mode == "align_corners" else "floor"))
    np.testing.assert_allclose(evaluate([X], out, [x]), ref, rtol=1e-5, atol=1e-6)


def test_resize_errors():
    X = te.placeholder((1, 2, 4, 6), name="X")
    with pytest.raises(ValueError, match="method must be 'nearest_neighbor', 'linear' or 'cubic', got 'area'"):
        topi.image.resize2d(X, None, (2, 2), method="area")
    with pytest.raises(ValueError, match=r"size needs 2 entries for layout 'NCHW', got \[2\]"):
        topi.image.resize2d(X, None, (2,))


def test_gather_nd():
    D = te.placeholder((3, 4, 2), name="D")
    I = te.placeholder((2, 5), name="I", dtype="int32")
    d = rand(3, 4, 2)
    idx = np.array([[0, 2, 1, 2, 0], [3, 0, 1, 2, 3]], "int32")
    np.testing.assert_array_equal(evaluate([D, I], topi.gather_nd(D, I), [d, idx]), d[tuple(idx)])


def scatter_ref(data, indices, updates, axis, reduction):
    out = data.copy()
    ops = {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum}
    for pos in np.ndindex(*indices.shape):
        target = list(pos)
        target[axis] = indices[pos] % data.shape[axis]
        target = tuple(target)
        out[target] = updates[pos] if reduction == "update" else ops[reduction](out[target], updates[pos])
    return out


@pytest.mark.parametrize("reduction", ["update", "add", "mul", "min", "max"])
@pytest.mark.parametrize("axis", [0, 1])
def test_scatter_elements(reduction, axis):
    D = te.placeholder((3, 4), name="D")
    I = te.placeholder((2, 3), name="I", dtype="int32")
    U = te.placeholder((2, 3), name="U")
    d, u = rand(3, 4), rand(2, 3, seed=1)
    rng = np.random.default_rng(3)
    idx = rng.integers(-3, 3, size=(2, 3)).astype("int32")
    ref = scatter_ref(d, idx, u, axis, reduction)
    got = evaluate([D, I, U], topi.scatter_elements(D, I, U, axis, reduction), [d, idx, u])
    np.testing.assert_allclose(got, ref, rtol=1e-6)


@pytest.mark.parametrize("mode", ["SYMMETRIC", "REFLECT"])
def test_mirror_pad(mode):
    X = te.placeholder((3, 4), name="X")
    x = rand(3, 4)
    got = evaluate([X], topi.nn.mirror_pad(X, (2, 1), (1, 2), mode), [x])
    np.testing.assert_array_equal(got, np.pad(x, ((2, 1), (1, 2)), mode=mode.lower()))


def test_depth_space_round_trip():
    X = te.placeholder((1, 8, 2, 3), name="X")
    x = rand(1, 8, 2, 3)
    dcr, crd = evaluate([X], [topi.nn.depth_to_space(X, 2), topi.nn.depth_to_space(X, 2, mode="CRD")], [x])
    b = 2
    ref_dcr = x.reshape(1, b, b, 2, 2, 3).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 6)
    ref_crd = x.reshape(1, 2, b, b, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6)
    np.testing.assert_array_equal(dcr, ref_dcr)
    np.testing.assert_array_equal(crd, ref_crd)
    Y = te.placeholder((1, 2, 4, 6), name="Y")
    back = evaluate([Y], topi.nn.space_to_depth(Y, 2), [ref_dcr])
    np.testing.assert_array_equal(back, x)
