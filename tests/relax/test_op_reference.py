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

RNG = np.random.default_rng(0)


def arr(shape, dtype="float32"):
    if dtype == "bool":
        return RNG.random(shape) > 0.5
    if "int" in dtype:
        return RNG.integers(0, 3, shape).astype(dtype)
    return (RNG.random(shape) + 0.5).astype(dtype)


def v(name, a):
    return relax.Var(name, relax.TensorStructInfo(list(a.shape), str(a.dtype) if a.dtype != bool else "bool"))


X = arr((2, 3, 4))
M = arr((3, 4))
I4 = np.array([0, 2, 1], "int64")
IMG = arr((1, 4, 6, 6))
W = arr((2, 4, 3, 3))

# (builder taking vars, inputs) for every op with a numpy implementation
CASES = {
    **{name: (lambda x, n=name: getattr(R, n)(x), [M])
       for name in ["abs", "negative", "sign", "square", "floor", "ceil", "round", "trunc", "exp", "log",
                    "sqrt", "rsqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan",
                    "asinh", "erf", "sigmoid", "log1p", "isnan", "isinf", "isfinite"]},
    "acosh": (lambda x: R.acosh(x), [M + 1]),
    "atanh": (lambda x: R.atanh(x), [M * 0.5 - 0.3]),
    "logical_not": (lambda x: R.logical_not(x), [arr((3,), "bool")]),
    "bitwise_not": (lambda x: R.bitwise_not(x), [arr((3,), "int32")]),
    **{name: (lambda a, b, n=name: getattr(R, n)(a, b), [X, M])
       for name in ["add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "equal",
                    "not_equal", "less", "less_equal", "greater", "greater_equal"]},
    **{name: (lambda a, b, n=name: getattr(R, n)(a, b), [arr((2, 3), "int32") + 1, arr((3,), "int32") + 1])
       for name in ["floor_divide", "mod", "floor_mod", "bitwise_and", "bitwise_or", "bitwise_xor",
                    "left_shift", "right_shift"]},
    **{name: (lambda a, b, n=name: getattr(R, n)(a, b), [arr((3,), "bool"), arr((3,), "bool")])
       for name in ["logical_and", "logical_or", "logical_xor"]},
    "where": (lambda c, a, b: R.where(c, a, b), [arr((3, 1), "bool"), M, arr((4,))]),
    "clip": (lambda x: R.clip(x, 0.7, 1.2), [M]),
    "astype": (lambda x: R.astype(x, "int32"), [M]),
    "matmul": (lambda a, b: R.matmul(a, b), [X, arr((4, 5))]),
    "permute_dims": (lambda x: R.permute_dims(x, [1, 0, 2]), [X]),
    "reshape": (lambda x: R.reshape(x, (6, -1)), [X]),
    "flatten": (lambda x: R.flatten(x), [X]),
    "expand_dims": (lambda x: R.expand_dims(x, [0, 3]), [M]),
    "squeeze": (lambda x: R.squeeze(x), [arr((1, 3, 1))]),
    "concat": (lambda a, b: R.concat([a, b], axis=1), [M, arr((3, 2))]),
    "split": (lambda x: R.split(x, [1, 3], axis=1), [M]),
    "strided_slice": (lambda x: R.strided_slice(x, [0, 2], [2, 0], [0, 4], [-1, 2]), [X]),
    "take": (lambda x, i: R.take(x, i, axis=1), [M, I4]),
    "broadcast_to": (lambda x: R.broadcast_to(x, (2, 3, 4)), [M]),
    "full_like": (lambda x: R.full_like(x, relax.const(np.float32(7))), [M]),
    "zeros_like": (lambda x: R.zeros_like(x, "int8"), [M]),
    "ones_like": (lambda x: R.ones_like(x), [M]),
    "tril": (lambda x: R.tril(x, 1), [M]),
    "triu": (lambda x: R.triu(x), [M]),
    **{name: (lambda x, n=name: getattr(R, n)(x, axis=[0, 2], keepdims=True), [X])
       for name in ["sum", "mean", "max", "min", "prod", "variance", "std"]},
    "argmax": (lambda x: R.argmax(x, axis=1), [X]),
    "argmin": (lambda x: R.argmin(x), [X]),
    "nn.relu": (lambda x: R.nn.relu(x), [M - 1]),
    "nn.gelu": (lambda x: R.nn.gelu(x), [M]),
    "nn.gelu_tanh": (lambda x: R.nn.gelu_tanh(x), [M]),
    "nn.silu": (lambda x: R.nn.silu(x), [M]),
    "nn.leakyrelu": (lambda x: R.nn.leakyrelu(x, 0.1), [M - 1]),
    "nn.softmax": (lambda x: R.nn.softmax(x, axis=0), [M]),
    "nn.log_softmax": (lambda x: R.nn.log_softmax(x), [M]),
    "nn.dropout": (lambda x: R.nn.dropout(x), [M]),
    "nn.layer_norm": (lambda x, g, b: R.nn.layer_norm(x, g, b, axes=[-1]), [X, arr((4,)), arr((4,))]),
    "nn.rms_norm": (lambda x, w: R.nn.rms_norm(x, w), [X, arr((4,))]),
    "nn.batch_norm": (lambda x, g, b, m, s: R.nn.batch_norm(x, g, b, m, s, axis=1),
                      [IMG, arr((4,)), arr((4,)), arr((4,)), arr((4,))]),
    "nn.group_norm": (lambda x, g, b: R.nn.group_norm(x, g, b, 2, 1, [2, 3]), [IMG, arr((4,)), arr((4,))]),
    "nn.conv1d": (lambda x, w: R.nn.conv1d(x, w, strides=2, padding=1), [arr((1, 4, 9)), arr((3, 4, 3))]),
    "nn.conv2d": (lambda x, w: R.nn.conv2d(x, w, strides=2, padding=1, dilation=1), [IMG, W]),
    "nn.conv2d_transpose": (lambda x, w: R.nn.conv2d_transpose(x, w, strides=2, padding=1, output_padding=1),
                            [IMG, arr((4, 2, 3, 3))]),
    "nn.max_pool2d": (lambda x: R.nn.max_pool2d(x, 3, 2, padding=1, ceil_mode=True), [IMG]),
    "nn.avg_pool2d": (lambda x: R.nn.avg_pool2d(x, 2, 2, count_include_pad=True, padding=1), [IMG]),
    "nn.adaptive_avg_pool2d": (lambda x: R.nn.adaptive_avg_pool2d(x, (4, 3)), [IMG]),
    "nn.pad": (lambda x: R.nn.pad(x, [(1, 0), (0, 2)], pad_value=1.0), [M]),
    "nn.attention": (lambda q, k, w: R.nn.attention(q, k, w, causal_mask="TopLeft"),
                     [arr((1, 3, 2, 4)), arr((1, 5, 2, 4)), arr((1, 5, 2, 6))]),
}
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
            args.append(a.value.value)
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
