"""Reference semantics of Relax operators in numpy: ``OP_IMPLS[name](args, attrs)``.

Slow, obviously-correct, legalisation-free; used by FoldConstant and as the oracle that
lowered code is compared against.  ``args`` are numpy arrays (tuples of arrays for tuple
arguments, tuples of ints for shapes, Python scalars for PrimValues).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["OP_IMPLS", "evaluate_op"]


def _erf(x):
    vec = np.vectorize(math.erf, otypes=[x.dtype])
    return vec(x)


def _sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x))).astype(x.dtype)


_UNARY = {
    "abs": np.abs, "negative": np.negative, "sign": np.sign, "square": np.square,
    "floor": np.floor, "ceil": np.ceil, "round": np.round, "trunc": np.trunc,
    "bitwise_not": np.invert, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
    "rsqrt": lambda x: (1.0 / np.sqrt(x)).astype(x.dtype), "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "erf": _erf, "sigmoid": _sigmoid, "log1p": np.log1p,
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "logical_not": np.logical_not,
}


def _divide(a, b):
    if np.issubdtype(a.dtype, np.integer):
        return np.trunc(a / b).astype(a.dtype)  # C semantics, like TIR's Div
    return np.divide(a, b)


_BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": _divide,
    "floor_divide": np.floor_divide, "power": np.power, "maximum": np.maximum,
    "minimum": np.minimum, "mod": np.fmod, "floor_mod": np.mod, "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor, "left_shift": np.left_shift,
    "right_shift": np.right_shift, "equal": np.equal, "not_equal": np.not_equal, "less": np.less,
    "less_equal": np.less_equal, "greater": np.greater, "greater_equal": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor,
}


def _keep(x, out):
    """Results keep the input's dtype (numpy promotes scalars differently)."""
    return np.asarray(out).astype(x.dtype) if np.asarray(out).dtype != x.dtype else np.asarray(out)


def _reduce(fn):
    def run(args, attrs):
        x = args[0]
        axis = None if attrs.axis is None else tuple(attrs.axis)
        return _keep(x, fn(x, axis=axis, keepdims=attrs.keepdims))

    return run


def _arg(fn):
    def run(args, attrs):
        out = fn(args[0], axis=attrs.axis, keepdims=attrs.keepdims)
        return np.asarray(out, dtype="int64")

    return run


def _split(args, attrs):
    x = args[0]
    spec = attrs.indices_or_sections
    return tuple(np.split(x, spec if isinstance(spec, int) else list(spec), axis=attrs.axis))


def _strided_slice(args, attrs):
    x = args[0]
    index = [slice(None)] * x.ndim
    strides = attrs.strides or (1,) * len(attrs.axes)
    for ax, b, e, s in zip(attrs.axes, attrs.begin, attrs.end, strides):
        index[ax] = slice(b, e, s)
    return x[tuple(index)]


def _take(args, attrs):
    x, idx = args
    if attrs.axis is None:
        return np.take(x.reshape(-1), idx)
    return np.take(x, idx, axis=attrs.axis)


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(x.dtype)


def _log_softmax(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return (shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))).astype(x.dtype)


def _gelu(x):
    return (0.5 * x * (1.0 + _erf(x / np.sqrt(2.0).astype(x.dtype)))).astype(x.dtype)


def _gelu_tanh(x):
    c = np.sqrt(2.0 / np.pi)
    return (0.5 * x * (1.0 + np.tanh(c * (x + 0.044715 * x**3)))).astype(x.dtype)


def _along(v, ndim: int, axes):
    """A per-axes parameter (gamma, beta, weight: the normalised axes' extents, in order) laid
    along those axes of a rank-``ndim`` tensor (they need not be the trailing ones)."""
    v = np.asarray(v)
    shape = [1] * ndim
    for a, d in zip(sorted(int(ax) % ndim for ax in axes), v.shape):
        shape[a] = d
    return v.reshape(shape) if v.ndim == len(axes) else v


def _layout_transform(x, attrs):
    """``x`` laid out by the index map; padding positions get ``pad_value`` (0 when None)."""
    out = attrs.index_map.map_ndarray(np.asarray(x))
    if attrs.pad_value is not None and out.size != np.asarray(x).size:
        mask = attrs.index_map.map_ndarray(np.ones(np.shape(x), dtype=bool))
        out = np.where(mask, out, np.asarray(attrs.pad_value.value, dtype=out.dtype))
    return out


def _layer_norm(args, attrs):
    x, gamma, beta = args
    axes = tuple(attrs.axes)
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    out = (x - mean) / np.sqrt(var + attrs.epsilon)
    if attrs.scale:
        out = out * _along(gamma, x.ndim, axes)
    if attrs.center:
        out = out + _along(beta, x.ndim, axes)
    return out.astype(x.dtype)


def _rms_norm(args, attrs):
    x, w = args
    axes = tuple(attrs.axes)
    rms = np.sqrt((x.astype("float64") ** 2).mean(axis=axes, keepdims=True) + attrs.epsilon)
    return (x / rms * _along(w, x.ndim, axes)).astype(x.dtype)


def _batch_norm(args, attrs):
    x, gamma, beta, mean, var = args
    shape = [1] * x.ndim
    shape[attrs.axis] = -1
    out = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + attrs.epsilon)
    if attrs.scale:
        out = out * gamma.reshape(shape)
    if attrs.center:
        out = out + beta.reshape(shape)
    return (out.astype(x.dtype), mean, var)


def _group_norm(args, attrs):
    x, gamma, beta = args
    c = attrs.channel_axis % x.ndim
    g = attrs.num_groups
    shape = list(x.shape)
    grouped = x.reshape(shape[:c] + [g, shape[c] // g] + shape[c + 1 :])
    red = tuple(sorted({c + 1} | {a + 1 if a > c else a for a in (ax % x.ndim for ax in attrs.axes)}))
    mean = grouped.mean(axis=red, keepdims=True)
    var = grouped.var(axis=red, keepdims=True)
    out = ((grouped - mean) / np.sqrt(var + attrs.epsilon)).reshape(shape)
    bshape = [1] * x.ndim
    bshape[c] = -1
    if attrs.scale:
        out = out * gamma.reshape(bshape)
    if attrs.center:
        out = out + beta.reshape(bshape)
    return out.astype(x.dtype)


def _pad(args, attrs):
    x = args[0]
    w = attrs.pad_width
    pairs = [(w[2 * i], w[2 * i + 1]) for i in range(x.ndim)]
    if attrs.pad_mode == "constant":
        return np.pad(x, pairs, constant_values=attrs.pad_value)
    return np.pad(x, pairs, mode={"edge": "edge", "reflect": "reflect"}[attrs.pad_mode])


def _attention(args, attrs):
    q, k, v = args[:3]
    scale = attrs.scale if attrs.scale is not None else 1.0 / np.sqrt(q.shape[-1])
    qt, kt, vt = (np.transpose(t, (0, 2, 1, 3)) for t in (q, k, v))
    scores = np.einsum("bnsh,bnth->bnst", qt, kt) * scale
    if len(args) > 3:
        scores = scores + args[3]
    if attrs.causal_mask is not None:
        s, t = scores.shape[-2:]
        offset = t - s if attrs.causal_mask == "BottomRight" else 0
        mask = np.tril(np.ones((s, t), dtype=bool), k=offset)
        scores = np.where(mask, scores, -np.inf)
    out = np.einsum("bnst,bnth->bnsh", _softmax(scores.astype(q.dtype), -1), vt)
    return np.transpose(out, (0, 2, 1, 3)).astype(q.dtype)


def _matmul(args, attrs):
    out = np.matmul(args[0], args[1])
    return out.astype(attrs.out_dtype.numpy()) if attrs.out_dtype is not None else _keep(args[0], out)


def _arange(args, attrs):
    return np.arange(args[0], args[1], args[2]).astype(attrs.dtype.numpy())


def _dtype_of(attrs, like):
    return attrs.dtype.numpy() if attrs.dtype is not None else like.dtype


_BOOL_RESULTS = {"isnan", "isinf", "isfinite", "logical_not", "equal", "not_equal", "less",
                 "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor"}


def _unary_impl(name: str, fn):
    if name in _BOOL_RESULTS:
        return lambda args, attrs: fn(args[0])
    return lambda args, attrs: _keep(args[0], fn(args[0]))


def _binary_impl(name: str, fn):
    if name in _BOOL_RESULTS:
        return lambda args, attrs: fn(args[0], args[1])
    return lambda args, attrs: _keep(np.asarray(args[0]), fn(args[0], args[1]))


OP_IMPLS: dict = {
    **{n: _unary_impl(n, f) for n, f in _UNARY.items()},
    **{n: _binary_impl(n, f) for n, f in _BINARY.items()},
    "where": lambda args, attrs: np.where(*args),
    "clip": lambda args, attrs: np.clip(args[0], attrs.min, attrs.max),
    "astype": lambda args, attrs: args[0].astype(attrs.dtype.numpy()),
    "matmul": _matmul,
    "permute_dims": lambda args, attrs: np.transpose(args[0], attrs.axes),
    "reshape": lambda args, attrs: args[0].reshape(args[1]),
    "flatten": lambda args, attrs: args[0].reshape(-1),
    "expand_dims": lambda args, attrs: np.expand_dims(args[0], tuple(attrs.axis)),
    "squeeze": lambda args, attrs: np.squeeze(args[0], None if attrs.axis is None else tuple(attrs.axis)),
    "concat": lambda args, attrs: np.concatenate(list(args[0]), axis=attrs.axis) if attrs.axis is not None
    else np.concatenate([a.reshape(-1) for a in args[0]]),
    "split": _split,
    "strided_slice": _strided_slice,
    "take": _take,
    "broadcast_to": lambda args, attrs: np.broadcast_to(args[0], args[1]).copy(),
    "full": lambda args, attrs: np.full(args[0], args[1], dtype=_dtype_of(attrs, np.asarray(args[1]))),
    "full_like": lambda args, attrs: np.full_like(args[0], args[1], dtype=_dtype_of(attrs, args[0])),
    "zeros": lambda args, attrs: np.zeros(args[0], attrs.dtype.numpy()),
    "ones": lambda args, attrs: np.ones(args[0], attrs.dtype.numpy()),
    "zeros_like": lambda args, attrs: np.zeros_like(args[0], dtype=_dtype_of(attrs, args[0])),
    "ones_like": lambda args, attrs: np.ones_like(args[0], dtype=_dtype_of(attrs, args[0])),
    "arange": _arange,
    "tril": lambda args, attrs: np.tril(args[0], args[1]),
    "triu": lambda args, attrs: np.triu(args[0], args[1]),
    "sum": _reduce(np.sum), "mean": _reduce(np.mean), "max": _reduce(np.max), "min": _reduce(np.min),
    "prod": _reduce(np.prod), "variance": _reduce(np.var), "std": _reduce(np.std),
    "argmax": _arg(np.argmax), "argmin": _arg(np.argmin),
    "nn.relu": lambda args, attrs: np.maximum(args[0], 0).astype(args[0].dtype),
    "nn.gelu": lambda args, attrs: _gelu(args[0]),
    "nn.gelu_tanh": lambda args, attrs: _gelu_tanh(args[0]),
    "nn.silu": lambda args, attrs: (args[0] * _sigmoid(args[0])).astype(args[0].dtype),
    "nn.leakyrelu": lambda args, attrs: np.where(args[0] > 0, args[0], args[0] * attrs.alpha).astype(args[0].dtype),
    "nn.softmax": lambda args, attrs: _softmax(args[0], attrs.axis),
    "nn.log_softmax": lambda args, attrs: _log_softmax(args[0], attrs.axis),
    "nn.dropout": lambda args, attrs: (args[0], np.ones_like(args[0])),
    "nn.layer_norm": _layer_norm,
    "layout_transform": lambda args, attrs: _layout_transform(args[0], attrs),
    "nn.rms_norm": _rms_norm,
    "nn.batch_norm": _batch_norm,
    "nn.group_norm": _group_norm,
    "nn.pad": _pad,
    "nn.attention": _attention,
    "shape_of": lambda args, attrs: tuple(args[0].shape),
}

def evaluate_op(name: str, args, attrs):
    """Run the Relax op ``name`` (without the ``relax.`` prefix) on numpy values."""
    short = name[6:] if name.startswith("relax.") else name
    impl = OP_IMPLS.get(short)
    if impl is None:
        raise NotImplementedError(f"the reference evaluator has no implementation of relax.{short}")
    return impl(args, attrs)


def _register_more() -> None:
    from .ops_more import MORE_IMPLS
    from .ops_index_nd import INDEX_ND_IMPLS
    from .ops_set import SET_IMPLS
    from .ops_window import WINDOW_IMPLS

    OP_IMPLS.update(MORE_IMPLS)
    OP_IMPLS.update(WINDOW_IMPLS)
    OP_IMPLS.update(INDEX_ND_IMPLS)
    OP_IMPLS.update(SET_IMPLS)


_register_more()
