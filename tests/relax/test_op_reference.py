"""Every operator's inferred struct info agrees with what its numpy reference produces,
and broadcasting inference agrees with numpy (property test)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import relax
from ember.relax import op as R
from ember.relax.reference import evaluate_op
from ember.relax.reference.ops import OP_IMPLS
from ember.relax.struct_info import TensorStructInfo, TupleStructInfo, static_dims

from relax_op_cases import CASES, arr, v  # noqa: E402

NO_TENSOR_INPUT = {"full", "zeros", "ones", "arange", "shape_of"}


def test_every_reference_op_has_a_case():
    assert set(OP_IMPLS) - set(CASES) - NO_TENSOR_INPUT == set()


def _check(sinfo, value):
    if isinstance(sinfo, TupleStructInfo):
        assert len(sinfo.fields) == len(value)
        for s, x in zip(sinfo.fields, value):
            _check(s, x)
        return
    assert isinstance(sinfo, TensorStructInfo)
    value = np.asarray(value)
    if sinfo.shape is None:  # data-dependent sizes (unique, nonzero): the rank is what is known
        assert sinfo.ndim == value.ndim
    else:
        assert static_dims(sinfo) == value.shape
    assert str(sinfo.dtype) == ("bool" if value.dtype == bool else str(value.dtype))


@pytest.mark.parametrize("name", sorted(CASES))
def test_inference_matches_reference(name):
    build, inputs = CASES[name]
    params = [v(f"a{i}", a) for i, a in enumerate(inputs)]
    call = relax.BlockBuilder().normalize(build(*params))
    args = []
    for a in call.args:
        if isinstance(a, relax.Var):
            args.append(inputs[params.index(a)])
        elif isinstance(a, relax.Tuple):
            args.append(tuple(inputs[params.index(f)] for f in a.fields))
        elif isinstance(a, relax.Constant):
            args.append(a.numpy())
        elif isinstance(a, relax.ShapeExpr):
            args.append(tuple(int(d) for d in a.values))
        elif isinstance(a, relax.PrimValue):
            args.append(np.dtype(str(a.value.dtype)).type(a.value.value))
    with np.errstate(all="ignore"):
        out = evaluate_op(call.op.name, args, call.attrs)
    _check(call.struct_info, out)


def test_reference_conv2d_matches_direct_loops():
    x, w = arr((1, 2, 5, 5)), arr((3, 2, 3, 3))
    call = R.nn.conv2d(v("x", x), v("w", w), strides=2, padding=1)
    got = evaluate_op("relax.nn.conv2d", [x, w], call.attrs)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((1, 3, 3, 3), "float32")
    for o in range(3):
        for i in range(3):
            for j in range(3):
                ref[0, o, i, j] = (xp[0, :, 2 * i : 2 * i + 3, 2 * j : 2 * j + 3] * w[o]).sum()
    np.testing.assert_allclose(got, ref, rtol=1e-5)


dims = st.lists(st.integers(1, 4), min_size=0, max_size=4)


@settings(max_examples=60, deadline=None)
@given(dims, dims, st.data())
def test_broadcast_inference_matches_numpy(a, b, data):
    # make some dims 1 so that broadcasting happens often
    a = [d if data.draw(st.booleans()) else 1 for d in a]
    sa, sb = relax.TensorStructInfo(a, "float32"), relax.TensorStructInfo(b, "float32")
    call = R.add(relax.Var("a", sa), relax.Var("b", sb))
    try:
        expected = np.broadcast_shapes(tuple(a), tuple(b))
    except ValueError:
        with pytest.raises(ValueError, match="cannot broadcast shapes"):
            relax.BlockBuilder().normalize(call)
        return
    assert static_dims(relax.BlockBuilder().normalize(call).struct_info) == expected


def test_reference_pooling_matches_loops():
    x = arr((1, 1, 5, 5))
    call = R.nn.avg_pool2d(v("x", x), 3, 2, padding=1, count_include_pad=False)
    got = evaluate_op("relax.nn.avg_pool2d", [x], call.attrs)
    xp = np.pad(x[0, 0], 1, constant_values=np.nan)
    ref = np.array([[np.nanmean(xp[2 * i : 2 * i + 3, 2 * j : 2 * j + 3]) for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(got[0, 0], ref, rtol=1e-6)
    call = R.nn.max_pool1d(v("s", x[0]), 2, 2, ceil_mode=True)
    got = evaluate_op("relax.nn.max_pool1d", [x[0]], call.attrs)
    np.testing.assert_allclose(got[0, :, 2], x[0, 0, :, 4])


def test_reference_conv_transpose_is_adjoint_of_conv():
    # <conv(x, w), y> == <x, conv_transpose(y, w)> for stride 2, padding 1
    x, w, y = arr((1, 2, 7, 7)), arr((3, 2, 3, 3)), arr((1, 3, 4, 4))
    conv = R.nn.conv2d(v("x", x), v("w", w), strides=2, padding=1)
    cx = evaluate_op("relax.nn.conv2d", [x, w], conv.attrs)
    tr = R.nn.conv2d_transpose(v("y", y), v("w", w), strides=2, padding=1)
    ty = evaluate_op("relax.nn.conv2d_transpose", [y, w], tr.attrs)
    assert ty.shape == x.shape
    np.testing.assert_allclose((cx * y).sum(), (x * ty).sum(), rtol=1e-4)


@pytest.mark.parametrize("mode", ["half_pixel", "align_corners", "asymmetric"])
def test_reference_resize_linear_matches_separable_interp(mode):
    x = arr((1, 1, 4, 5))
    call = R.image.resize2d(v("x", x), (7, 3), coordinate_transformation_mode=mode)
    got = evaluate_op("relax.image.resize2d", [x, (7, 3)], call.attrs)

    def coords(o, n):
        if mode == "align_corners":
            return np.arange(o) * (n - 1) / (o - 1)
        if mode == "asymmetric":
            return np.arange(o) * n / o
        return (np.arange(o) + 0.5) * n / o - 0.5

    rows = np.array([np.interp(coords(3, 5), np.arange(5), r) for r in x[0, 0]])
    ref = np.array([np.interp(coords(7, 4), np.arange(4), c) for c in rows.T]).T
    np.testing.assert_allclose(got[0, 0], ref, rtol=1e-5)


def test_reference_resize_nearest():
    x = np.arange(4, dtype="float32").reshape(1, 1, 2, 2)
    call = R.image.resize2d(v("x", x), (4, 4), method="nearest_neighbor", coordinate_transformation_mode="asymmetric",
                            rounding_method="floor")
    got = evaluate_op("relax.image.resize2d", [x, (4, 4)], call.attrs)
    np.testing.assert_array_equal(got[0, 0], np.repeat(np.repeat(x[0, 0], 2, 0), 2, 1))


def test_reference_layout_transform_moves_each_element():
    x = arr((2, 6))
    call = R.layout_transform(v("x", x), lambda i, j: (j // 3, i, j % 3))
    got = evaluate_op("relax.layout_transform", [x], call.attrs)
    np.testing.assert_array_equal(got, x.reshape(2, 2, 3).transpose(1, 0, 2))


def test_reference_layer_norm_over_middle_axes():
    x, g = arr((2, 3, 4, 5)), arr((3, 4)) + 2
    call = R.nn.layer_norm(v("x", x), v("g", g), v("b", g), axes=[1, 2])
    got = evaluate_op("relax.nn.layer_norm", [x, g, g], call.attrs)
    mean, var = x.mean(axis=(1, 2), keepdims=True), x.var(axis=(1, 2), keepdims=True)
    want = (x - mean) / np.sqrt(var + 1e-5) * g[None, :, :, None] + g[None, :, :, None]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
