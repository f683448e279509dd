"""Reference semantics of Relax operators in numpy: ``OP_IMPLS[name](args, attrs)``.

Slow, obviously-correct, legalisation-free; used by FoldConstant and as the oracle that
lowered code is compared against.  ``args`` are numpy arrays (tuples of arrays for tuple
arguments, tuples of ints for shapes, Python scalars for PrimValues).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["OP_IMPLS", "evaluate_op", "conv2d_nchw"]


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


def _layer_norm(args, attrs):
    x, gamma, beta = args
    axes = tuple(attrs.axes)
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    out = (x - mean) / np.sqrt(var + attrs.epsilon)
    if attrs.scale:
        out = out * gamma
    if attrs.center:
        out = out + beta
    return out.astype(x.dtype)


def _rms_norm(args, attrs):
    x, w = args
    axes = tuple(attrs.axes)
    rms = np.sqrt((x.astype("float64") ** 2).mean(axis=axes, keepdims=True) + attrs.epsilon)
    return (x / rms * w).astype(x.dtype)


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


def conv2d_nchw(x, w, strides, padding, dilation, groups):
    """Direct NCHW/OIHW convolution (padding as top, left, bottom, right)."""
    n, c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (padding[0], padding[2]), (padding[1], padding[3])))
    oh = (x.shape[2] - dilation[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (x.shape[3] - dilation[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((n, o, oh, ow), dtype=np.result_type(x.dtype, w.dtype))
    opg = o // groups
    for gi in range(groups):
        xs = x[:, gi * ci : (gi + 1) * ci]
        ws = w[gi * opg : (gi + 1) * opg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dilation[0] : i * dilation[0] + strides[0] * (oh - 1) + 1 : strides[0],
                           j * dilation[1] : j * dilation[1] + strides[1] * (ow - 1) + 1 : strides[1]]
                out[:, gi * opg : (gi + 1) * opg] += np.einsum("nchw,oc->nohw", patch, ws[:, :, i, j])
    return out


def _to_layout(x, src: str, dst: str):
    return np.transpose(x, [src.index(c) for c in dst])


def _conv2d(args, attrs):
    x = _to_layout(args[0], attrs.data_layout, "NCHW")
    w = _to_layout(args[1], attrs.kernel_layout, "OIHW")
    out = conv2d_nchw(x, w, attrs.strides, attrs.padding, attrs.dilation, attrs.groups)
    dtype = attrs.out_dtype.numpy() if attrs.out_dtype is not None else args[0].dtype
    return _to_layout(out, "NCHW", attrs.out_layout).astype(dtype)


def _conv1d(args, attrs):
    x = _to_layout(args[0], attrs.data_layout, "NCW")[:, :, None, :]
    w = _to_layout(args[1], attrs.kernel_layout, "OIW")[:, :, None, :]
    pad = (0, attrs.padding[0], 0, attrs.padding[1])
    out = conv2d_nchw(x, w, (1, attrs.strides[0]), pad, (1, attrs.dilation[0]), attrs.groups)[:, :, 0, :]
    dtype = attrs.out_dtype.numpy() if attrs.out_dtype is not None else args[0].dtype
    return _to_layout(out, "NCW", attrs.out_layout).astype(dtype)


def _conv2d_transpose(args, attrs):
    x = _to_layout(args[0], attrs.data_layout, "NCHW")
    w = np.transpose(args[1], [attrs.kernel_layout.index(c) for c in "IOHW"])
    n, c, h, wd = x.shape
    _, opg, kh, kw = w.shape
    g = attrs.groups
    sh, sw = attrs.strides
    dh, dw = attrs.dilation
    full_h = (h - 1) * sh + dh * (kh - 1) + 1 + attrs.output_padding[0]
    full_w = (wd - 1) * sw + dw * (kw - 1) + 1 + attrs.output_padding[1]
    out = np.zeros((n, opg * g, full_h, full_w), dtype=x.dtype)
    cpg = c // g
    for gi in range(g):
        xs = x[:, gi * cpg : (gi + 1) * cpg]
        ws = w[gi * cpg : (gi + 1) * cpg]
        for i in range(kh):
            for j in range(kw):
                contrib = np.einsum("nchw,co->nohw", xs, ws[:, :, i, j])
                out[:, gi * opg : (gi + 1) * opg, i * dh : i * dh + sh * (h - 1) + 1 : sh,
                    j * dw : j * dw + sw * (wd - 1) + 1 : sw] += contrib
    pt, pl, pb, pr = attrs.padding
    out = out[:, :, pt : full_h - pb, pl : full_w - pr]
    return _to_layout(out, "NCHW", attrs.out_layout)


def _pool(kind):
    def run(args, attrs):
        x = _to_layout(args[0], attrs.layout, "NCHW")
        pt, pl, pb, pr = attrs.padding
        kh, kw = attrs.pool_size
        sh, sw = attrs.strides
        dh, dw = attrs.dilation
        n, c, h, w = x.shape

        def out_len(size, k, s, d, p):
            span = size + p - d * (k - 1) - 1
            return (span + s - 1) // s + 1 if attrs.ceil_mode else span // s + 1

        oh, ow = out_len(h, kh, sh, dh, pt + pb), out_len(w, kw, sw, dw, pl + pr)
        extra_h = max((oh - 1) * sh + dh * (kh - 1) + 1 - (h + pt), 0)
        extra_w = max((ow - 1) * sw + dw * (kw - 1) + 1 - (w + pl), 0)
        fill = -np.inf if kind == "max" else 0.0
        xp = np.pad(x.astype("float64"), ((0, 0), (0, 0), (pt, extra_h), (pl, extra_w)), constant_values=fill)
        valid = np.pad(np.ones((h, w)), ((pt, extra_h), (pl, extra_w)))
        inside = np.pad(np.ones((h + pt + pb, w + pl + pr)), ((0, max(extra_h - pb, 0)), (0, max(extra_w - pr, 0))))
        windows, counts = [], []
        for i in range(kh):
            for j in range(kw):
                sl = (slice(i * dh, i * dh + sh * (oh - 1) + 1, sh), slice(j * dw, j * dw + sw * (ow - 1) + 1, sw))
                windows.append(xp[(slice(None), slice(None)) + sl])
                counts.append((inside if attrs.count_include_pad else valid)[sl])
        if kind == "max":
            out = np.max(windows, axis=0)
        else:
            out = np.sum(windows, axis=0) / np.maximum(np.sum(counts, axis=0), 1)
        return _to_layout(out.astype(x.dtype), "NCHW", attrs.out_layout)

    return run


def _adaptive_avg_pool2d(args, attrs):
    x = _to_layout(args[0], attrs.layout, "NCHW")
    n, c, h, w = x.shape
    oh, ow = attrs.output_size if attrs.output_size is not None else (h, w)
    out = np.zeros((n, c, oh, ow), dtype=x.dtype)
    for i in range(oh):
        h0, h1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        for j in range(ow):
            w0, w1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            out[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return _to_layout(out, "NCHW", attrs.out_layout)


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
    "nn.rms_norm": _rms_norm,
    "nn.batch_norm": _batch_norm,
    "nn.group_norm": _group_norm,
    "nn.conv1d": _conv1d,
    "nn.conv2d": _conv2d,
    "nn.conv2d_transpose": _conv2d_transpose,
    "nn.max_pool2d": _pool("max"),
    "nn.avg_pool2d": _pool("avg"),
    "nn.adaptive_avg_pool2d": _adaptive_avg_pool2d,
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

    OP_IMPLS.update(MORE_IMPLS)


_register_more()
