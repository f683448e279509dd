"""``nn.op``: functional operators over traced ``nn.Tensor`` values.

Each function builds a ``relax.op`` call from its operands' expressions and emits it
through the BlockBuilder of the method being traced (``wrap_nested``), binding it to a
variable named after the op (``name=``), as TVM's ``nn.op`` does.  Python numbers mixed
with tensors become constants of the tensor's dtype.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ember.relax import op as _op
from ember.relax.block_builder import BlockBuilder
from ember.relax.expr import Expr, TupleGetItem
from ember.relax.struct_info import TensorStructInfo, TupleStructInfo

from .core import Tensor

__all__ = [
    "wrap_nested", "tensor_expr_op",
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "equal", "not_equal",
    "less", "less_equal", "greater", "greater_equal",
    "negative", "exp", "log", "sqrt", "rsqrt", "square", "tanh", "sigmoid", "erf",
    "relu", "gelu", "silu", "softmax", "log_softmax",
    "matmul", "astype", "reshape", "permute_dims", "concat", "split", "take", "squeeze",
    "unsqueeze", "broadcast_to", "where", "sum", "mean", "max", "min", "zeros", "ones", "full",
    "layer_norm", "rms_norm", "group_norm", "conv1d", "conv2d", "max_pool2d", "avg_pool2d", "pad",
    "chunk", "permute", "triu", "tril", "cumsum", "scaled_dot_product_attention",
]


def _builder(name: str) -> BlockBuilder:
    bb = BlockBuilder.current()
    if bb is None:
        raise RuntimeError(
            f"nn.op.{name}: no Relax function is being built; nn operators run only while "
            "Module.export_tvm traces a method"
        )
    return bb


def wrap_nested(expr: Expr, name: str):
    """Emit ``expr`` as a binding named ``name``; a Tensor, or a tuple of them for tuple results."""
    var = _builder(name).emit(expr, name_hint=name)
    sinfo = var.struct_info
    if isinstance(sinfo, TupleStructInfo):
        return tuple(wrap_nested(TupleGetItem(var, i), name) for i in range(len(sinfo.fields)))
    if not isinstance(sinfo, TensorStructInfo):
        raise TypeError(f"nn.op.{name}: the result is {sinfo}, not a tensor")
    return Tensor(_expr=var)


def _expr(x, what: str, like: Tensor | None = None) -> Expr:
    """The Relax expression of an operand (numbers take ``like``'s dtype)."""
    if isinstance(x, Tensor):
        if x._expr is None:  # a Parameter outside export_tvm: its struct_info explains the misuse
            _ = x.struct_info
        return x._expr
    if isinstance(x, bool | int | float):
        from ember.relax.expr import const

        dtype = like.dtype if like is not None else ("float32" if isinstance(x, float) else "int64")
        return const(x, dtype)
    raise TypeError(f"{what}: expected an nn.Tensor or a Python number, got {type(x).__name__}")


def _tensor(x, what: str) -> Expr:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected an nn.Tensor, got {type(x).__name__}")
    return _expr(x, what)


# -- elementwise --------------------------------------------------------------------------
def _binary(op_name: str, build: Callable) -> Callable:
    def fn(a, b, name: str = op_name) -> Tensor:
        what = f"nn.op.{op_name}"
        like = a if isinstance(a, Tensor) else b if isinstance(b, Tensor) else None
        if like is None:
            raise TypeError(f"{what}: at least one operand must be an nn.Tensor, got {type(a).__name__} "
                            f"and {type(b).__name__}")
        return wrap_nested(build(_expr(a, what, like), _expr(b, what, like)), name)

    fn.__name__ = op_name
    fn.__doc__ = f"Elementwise ``{op_name}`` with broadcasting (numbers take the tensor's dtype)."
    return fn


def _unary(op_name: str, build: Callable) -> Callable:
    def fn(x: Tensor, name: str = op_name) -> Tensor:
        return wrap_nested(build(_tensor(x, f"nn.op.{op_name}")), name)

    fn.__name__ = op_name
    fn.__doc__ = f"Elementwise ``{op_name}``."
    return fn


add = _binary("add", _op.add)
subtract = _binary("subtract", _op.subtract)
multiply = _binary("multiply", _op.multiply)
divide = _binary("divide", _op.divide)
maximum = _binary("maximum", _op.maximum)
minimum = _binary("minimum", _op.minimum)
equal = _binary("equal", _op.equal)
not_equal = _binary("not_equal", _op.not_equal)
less = _binary("less", _op.less)
less_equal = _binary("less_equal", _op.less_equal)
greater = _binary("greater", _op.greater)
greater_equal = _binary("greater_equal", _op.greater_equal)
negative = _unary("negative", _op.negative)
exp = _unary("exp", _op.exp)
log = _unary("log", _op.log)
sqrt = _unary("sqrt", _op.sqrt)
rsqrt = _unary("rsqrt", _op.rsqrt)
square = _unary("square", _op.square)
tanh = _unary("tanh", _op.tanh)
sigmoid = _unary("sigmoid", _op.sigmoid)
erf = _unary("erf", _op.erf)
relu = _unary("relu", _op.nn.relu)
silu = _unary("silu", _op.nn.silu)


def gelu(x: Tensor, approximate: str | None = None, name: str = "gelu") -> Tensor:
    """GELU; ``approximate="tanh"`` uses the tanh form."""
    if approximate not in (None, "none", "tanh"):
        raise ValueError(f"nn.op.gelu: approximate must be None or 'tanh', got {approximate!r}")
    build = _op.nn.gelu_tanh if approximate == "tanh" else _op.nn.gelu
    return wrap_nested(build(_tensor(x, "nn.op.gelu")), name)


def softmax(x: Tensor, axis: int = -1, name: str = "softmax") -> Tensor:
    return wrap_nested(_op.nn.softmax(_tensor(x, "nn.op.softmax"), axis), name)


def log_softmax(x: Tensor, axis: int = -1, name: str = "log_softmax") -> Tensor:
    return wrap_nested(_op.nn.log_softmax(_tensor(x, "nn.op.log_softmax"), axis), name)


# -- linear algebra and data movement ------------------------------------------------------
def matmul(a: Tensor, b: Tensor, out_dtype: str | None = None, name: str = "matmul") -> Tensor:
    """``a @ b`` with numpy's broadcasting of batch dimensions."""
    return wrap_nested(_op.matmul(_tensor(a, "nn.op.matmul"), _tensor(b, "nn.op.matmul"), out_dtype), name)


def astype(x: Tensor, dtype: str, name: str = "astype") -> Tensor:
    if x.dtype == str(dtype):
        return x
    return wrap_nested(_op.astype(_tensor(x, "nn.op.astype"), dtype), name)


def reshape(x: Tensor, shape: Sequence, name: str = "reshape") -> Tensor:
    """Reshape; ``shape`` may hold ints, -1 (inferred) and PrimExprs."""
    return wrap_nested(_op.reshape(_tensor(x, "nn.op.reshape"), list(shape)), name)


def permute_dims(x: Tensor, axes: Sequence[int] | None = None, name: str = "permute_dims") -> Tensor:
    """Permute the axes (reverse them when ``axes`` is None)."""
    return wrap_nested(_op.permute_dims(_tensor(x, "nn.op.permute_dims"), axes), name)


def concat(x: Sequence[Tensor], dim: int = 0, name: str = "concat") -> Tensor:
    if not isinstance(x, list | tuple) or not x:
        raise TypeError(f"nn.op.concat: x must be a non-empty list of nn.Tensor, got {x!r}")
    return wrap_nested(_op.concat([_tensor(t, "nn.op.concat") for t in x], dim), name)


def split(ary: Tensor, indices_or_sections: int | Sequence[int], axis: int = 0,
          name: str = "split") -> tuple[Tensor, ...]:
    """Split into equal sections (an int) or at the given indices; a tuple of Tensors."""
    return wrap_nested(_op.split(_tensor(ary, "nn.op.split"), indices_or_sections, axis), name)


def chunk(x: Tensor, chunks: int, dim: int = 0, name: str = "chunk") -> tuple[Tensor, ...]:
    """Split into ``chunks`` equal parts along ``dim``."""
    return split(x, chunks, dim, name=name)


def permute(x: Tensor, axes: Sequence[int], name: str = "permute") -> Tensor:
    return permute_dims(x, axes, name=name)


def triu(x: Tensor, diagonal: int = 0, name: str = "triu") -> Tensor:
    return wrap_nested(_op.triu(_tensor(x, "nn.op.triu"), diagonal), name)


def tril(x: Tensor, diagonal: int = 0, name: str = "tril") -> Tensor:
    return wrap_nested(_op.tril(_tensor(x, "nn.op.tril"), diagonal), name)


def cumsum(data: Tensor, axis: int | None = None, dtype: str | None = None, exclusive: bool = False,
           name: str = "cumsum") -> Tensor:
    return wrap_nested(_op.cumsum(_tensor(data, "nn.op.cumsum"), axis, dtype, exclusive), name)


def take(x: Tensor, indices: Tensor, axis: int | None = None, name: str = "take") -> Tensor:
    return wrap_nested(_op.take(_tensor(x, "nn.op.take"), _tensor(indices, "nn.op.take"), axis), name)


def squeeze(x: Tensor, axis: int | Sequence[int] | None = None, name: str = "squeeze") -> Tensor:
    return wrap_nested(_op.squeeze(_tensor(x, "nn.op.squeeze"), axis), name)


def unsqueeze(x: Tensor, dim: int, name: str = "unsqueeze") -> Tensor:
    return wrap_nested(_op.expand_dims(_tensor(x, "nn.op.unsqueeze"), dim), name)


def broadcast_to(x: Tensor, shape: Sequence, name: str = "broadcast_to") -> Tensor:
    return wrap_nested(_op.broadcast_to(_tensor(x, "nn.op.broadcast_to"), list(shape)), name)


def where(condition: Tensor, x1, x2, name: str = "where") -> Tensor:
    like = x1 if isinstance(x1, Tensor) else x2 if isinstance(x2, Tensor) else None
    return wrap_nested(_op.where(_tensor(condition, "nn.op.where"), _expr(x1, "nn.op.where", like),
                                 _expr(x2, "nn.op.where", like)), name)


def _reduce(op_name: str, build: Callable) -> Callable:
    def fn(x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False,
           name: str = op_name) -> Tensor:
        return wrap_nested(build(_tensor(x, f"nn.op.{op_name}"), axis, keepdims), name)

    fn.__name__ = op_name
    fn.__doc__ = f"``{op_name}`` over ``axis`` (all axes when None)."
    return fn


sum = _reduce("sum", _op.sum)  # noqa: A001 - TVM's name
mean = _reduce("mean", _op.mean)
max = _reduce("max", _op.max)  # noqa: A001
min = _reduce("min", _op.min)  # noqa: A001


def zeros(shape: Sequence, dtype: str = "float32", name: str = "zeros") -> Tensor:
    return wrap_nested(_op.zeros(list(shape), dtype), name)


def ones(shape: Sequence, dtype: str = "float32", name: str = "ones") -> Tensor:
    return wrap_nested(_op.ones(list(shape), dtype), name)


def full(shape: Sequence, fill_value, dtype: str = "float32", name: str = "full") -> Tensor:
    from ember.relax.expr import const

    value = fill_value._expr if isinstance(fill_value, Tensor) else const(fill_value, dtype)
    return wrap_nested(_op.full(list(shape), value, dtype), name)


def pad(x: Tensor, pad: Sequence[int], mode: str = "constant", value: float = 0.0, name: str = "pad") -> Tensor:
    """PyTorch-style ``pad``: (before, after) pairs starting from the *last* axis."""
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise ValueError(f"nn.op.pad: pad must hold (before, after) pairs for at most {x.ndim} axes, got {pad}")
    widths = [[0, 0] for _ in range(x.ndim)]
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = [int(pad[2 * i]), int(pad[2 * i + 1])]
    return wrap_nested(_op.nn.pad(_tensor(x, "nn.op.pad"), widths, mode, value), name)


# -- normalisation -------------------------------------------------------------------------
def _filled_const(size, dtype: str, value: float) -> Expr:
    import numpy as np

    from ember.relax.expr import const

    return const(np.full(size, value, dtype=dtype))


def layer_norm(x: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5, name: str = "layer_norm") -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` axes; missing weight/bias are 1/0."""
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    data = _tensor(x, "nn.op.layer_norm")
    gamma = _tensor(weight, "nn.op.layer_norm") if weight is not None else _filled_const(shape, x.dtype, 1.0)
    beta = _tensor(bias, "nn.op.layer_norm") if bias is not None else _filled_const(shape, x.dtype, 0.0)
    axes = list(range(-len(shape), 0))
    return wrap_nested(_op.nn.layer_norm(data, gamma, beta, axes, eps), name)


def rms_norm(x: Tensor, weight: Tensor, axes: int | Sequence[int], epsilon: float = 1e-5,
             name: str = "rms_norm") -> Tensor:
    return wrap_nested(_op.nn.rms_norm(_tensor(x, "nn.op.rms_norm"), _tensor(weight, "nn.op.rms_norm"),
                                       axes, epsilon), name)


def group_norm(x: Tensor, num_groups: int, weight: Tensor | None, bias: Tensor | None, eps: float = 1e-5,
               channel_axis: int = 1, axes: Sequence[int] | None = None, name: str = "group_norm") -> Tensor:
    """Group normalisation over ``channel_axis`` split into ``num_groups`` (NC… layout by default)."""
    channels = x.shape[channel_axis]
    data = _tensor(x, "nn.op.group_norm")
    if axes is None:
        axes = [i for i in range(2, x.ndim)] if channel_axis == 1 else [
            i for i in range(1, x.ndim) if i != channel_axis % x.ndim]
    gamma = _tensor(weight, "nn.op.group_norm") if weight is not None else _filled_const(channels, x.dtype, 1.0)
    beta = _tensor(bias, "nn.op.group_norm") if bias is not None else _filled_const(channels, x.dtype, 0.0)
    return wrap_nested(_op.nn.group_norm(data, gamma, beta, num_groups, channel_axis, list(axes), eps), name)


# -- convolution and pooling ---------------------------------------------------------------
def _add_channel_bias(out: Tensor, bias: Tensor | None, channel_axis: int, name: str) -> Tensor:
    if bias is None:
        return out
    shape = [1] * out.ndim
    shape[channel_axis] = -1
    return add(out, reshape(bias, shape), name=name)


def conv1d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: int = 1, padding: int = 0,
           dilation: int = 1, groups: int = 1, data_layout: str = "NCW", name: str = "conv1d") -> Tensor:
    out = wrap_nested(_op.nn.conv1d(_tensor(x, "nn.op.conv1d"), _tensor(weight, "nn.op.conv1d"), stride, padding,
                                    dilation, groups, data_layout), name)
    return _add_channel_bias(out, bias, data_layout.index("C"), "add")


def conv2d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1, data_layout: str = "NCHW", name: str = "conv2d") -> Tensor:
    """2-D convolution (weight OIHW) with an optional per-channel bias."""
    def pair(v):
        return (v, v) if isinstance(v, int) else tuple(v)

    out = wrap_nested(_op.nn.conv2d(_tensor(x, "nn.op.conv2d"), _tensor(weight, "nn.op.conv2d"), pair(stride),
                                    padding, pair(dilation),
                                    groups, data_layout), name)
    return _add_channel_bias(out, bias, data_layout.index("C"), "add")


def max_pool2d(x: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               name: str = "max_pool2d") -> Tensor:
    return _pool2d(_op.nn.max_pool2d, x, kernel_size, stride, padding, dilation, ceil_mode, name)


def avg_pool2d(x: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               name: str = "avg_pool2d") -> Tensor:
    return _pool2d(_op.nn.avg_pool2d, x, kernel_size, stride, padding, dilation, ceil_mode, name)


def _pool2d(build, x, kernel_size, stride, padding, dilation, ceil_mode, name) -> Tensor:
    def pair(v):
        return (v, v) if isinstance(v, int) else tuple(v)

    stride = kernel_size if stride is None else stride
    return wrap_nested(build(_tensor(x, f"nn.op.{name}"), pair(kernel_size), pair(stride), pair(padding),
                             pair(dilation), ceil_mode), name)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 is_causal: bool = False, scale: float | None = None,
                                 name: str = "scaled_dot_product_attention") -> Tensor:
    """Attention over (batch, seq, heads, head_dim) tensors; ``attn_mask`` is added to the scores."""
    what = "nn.op.scaled_dot_product_attention"
    bias = None if attn_mask is None else _tensor(attn_mask, what)
    return wrap_nested(_op.nn.attention(_tensor(query, what), _tensor(key, what), _tensor(value, what), bias,
                                        scale, "TopLeft" if is_causal else None), name)


# -- TE escape hatch -----------------------------------------------------------------------
def tensor_expr_op(tensor_expr_func: Callable, name_hint: str, args: Sequence, attrs: dict | None = None):
    """Emit a TE function over the arguments (Tensors become TE placeholders) as a ``call_tir``."""
    bb = _builder(name_hint)
    converted = [a._expr if isinstance(a, Tensor) else a for a in args]
    kwargs = {"primfunc_name_hint": name_hint}
    if attrs:
        kwargs["primfunc_attrs"] = attrs
    return wrap_nested(bb.call_te(tensor_expr_func, *converted, **kwargs), name_hint)
