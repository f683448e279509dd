"""Sample calls of every Relax operator with numpy inputs (shared by the op tests)."""

import numpy as np

from ember import relax
from ember.relax import op as R

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
    "layout_transform": (lambda x: R.layout_transform(x, lambda a, b, c: (a, c, b // 3, b % 3)), [X]),
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

IDX = np.array([[0, 2, 1], [1, 0, 2]], "int64")
CASES.update({
    "gather_elements": (lambda x, i: R.gather_elements(x, i, axis=1), [arr((2, 3)), IDX]),
    "gather_nd": (lambda x, i: R.gather_nd(x, i), [arr((3, 4, 2)), np.array([[0, 1], [2, 3]], "int64")]),
    "scatter_elements": (lambda x, i, u: R.scatter_elements(x, i, u, axis=1, reduction="add"),
                         [arr((2, 3)), IDX, arr((2, 3))]),
    "scatter_nd": (lambda x, i, u: R.scatter_nd(x, i, u, reduction="add"),
                   [arr((4, 3)), np.array([[1], [3]], "int64"), arr((2, 3))]),
    "one_hot": (lambda i: R.one_hot(i, 1.0, 0.0, 4, axis=0), [np.array([0, 3, 1], "int32")]),
    "sort": (lambda x: R.sort(x, axis=0, descending=True), [M]),
    "argsort": (lambda x: R.argsort(x, axis=1, dtype="int64"), [M]),
    "topk": (lambda x: R.topk(x, k=2, axis=1), [M]),
    "ewise_fma": (lambda a, b, c: R.ewise_fma(a, b, c), [M, M, M]),
    "unique": (lambda x: R.unique(x, sorted=False, return_index=True, return_inverse=True,
                                  return_counts=True, axis=1), [np.array([[1, 2, 1], [0, 5, 0]], "int32")]),
    "nonzero": (lambda x: R.nonzero(x), [np.array([[True, False], [False, True]])]),
    "cumsum": (lambda x: R.cumsum(x, axis=1, exclusive=True), [M]),
    "cumprod": (lambda x: R.cumprod(x), [M]),
    "tile": (lambda x: R.tile(x, (2, 1, 2)), [M]),
    "repeat": (lambda x: R.repeat(x, 2, axis=0), [M]),
    "flip": (lambda x: R.flip(x, -1), [X]),
    "einsum": (lambda a, b: R.einsum((a, b), "bij,jk->bki"), [X, arr((4, 5))]),
})

VOL = arr((1, 2, 5, 6, 4))
SEQ = arr((2, 3, 9))
CASES.update({
    "nn.conv3d": (lambda x, w: R.nn.conv3d(x, w, strides=(1, 2, 1), padding=1, groups=2),
                  [VOL, arr((4, 1, 3, 3, 2))]),
    "nn.max_pool1d": (lambda x: R.nn.max_pool1d(x, 3, 2, padding=1), [SEQ]),
    "nn.avg_pool1d": (lambda x: R.nn.avg_pool1d(x, 2, 2, ceil_mode=True), [SEQ]),
    "nn.max_pool3d": (lambda x: R.nn.max_pool3d(x, 2, 2), [VOL]),
    "nn.avg_pool3d": (lambda x: R.nn.avg_pool3d(x, (2, 2, 1), 1, padding=(1, 0, 0), count_include_pad=True), [VOL]),
    "nn.adaptive_avg_pool1d": (lambda x: R.nn.adaptive_avg_pool1d(x, 4), [SEQ]),
    "nn.adaptive_avg_pool3d": (lambda x: R.nn.adaptive_avg_pool3d(x, (2, 3, 1), layout="NDHWC"), [VOL]),
})

CASES.update({
    "image.resize2d": (lambda x: R.image.resize2d(x, (9, 4)), [IMG]),
    "nn.prelu": (lambda x, a: R.nn.prelu(x, a), [IMG - 1, arr((4,))]),
    "nn.instance_norm": (lambda x, g, b: R.nn.instance_norm(x, g, b), [IMG, arr((4,)), arr((4,))]),
})
