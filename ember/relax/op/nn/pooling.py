"""Pooling of ``relax.nn`` in 1, 2 and 3 spatial dims: max_pool{1,2,3}d,
avg_pool{1,2,3}d, adaptive_avg_pool{1,2,3}d (any permutation of the layout letters)."""

from __future__ import annotations

from ember.ir import as_expr

from ..._arith import as_int, simplify
from ...expr import Call
from ...struct_info import TensorStructInfo, shape_values
from .._infer import tensor
from ..attrs import (
    AdaptivePool1DAttrs, AdaptivePool2DAttrs, AdaptivePool3DAttrs, Pool1DAttrs, Pool2DAttrs,
    Pool3DAttrs,
)
from ..base import make_call, register, shape_str, tensor_arg
from .convolution import _tuple, expand_padding

__all__ = [
    "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
]

_SPATIAL = {1: "W", 2: "HW", 3: "DHW"}
_POOL_ATTRS = {1: Pool1DAttrs, 2: Pool2DAttrs, 3: Pool3DAttrs}
_ADAPTIVE_ATTRS = {1: AdaptivePool1DAttrs, 2: AdaptivePool2DAttrs, 3: AdaptivePool3DAttrs}


def _parsed(call, name: str, spatial: str):
    """The parsed layout ``name``: a permutation of N, C and the spatial letters, where
    only N and C may be split (``"NCHW16c"``)."""
    from ember.tir.data_layout import layout

    letters = "NC" + spatial
    try:
        lay = layout(name)
    except ValueError as err:
        raise ValueError(f"{call.op.name}: {err}") from None
    if sorted(lay.primal) != sorted(letters) or any(lay.factor_of(c) != -1 for c in spatial):
        raise ValueError(f"{call.op.name}: layout {name!r} is not supported; expected a permutation of {letters!r}")
    return lay


def _layout_dims(call, x: TensorStructInfo, layout: str, spatial: str):
    lay = _parsed(call, layout, spatial)
    if x.ndim not in (-1, len(lay)):
        raise ValueError(f"{call.op.name}: data must have {len(lay)} dims, got {x.ndim}")
    values = shape_values(x)
    return None if values is None else {c: simplify(v) for c, v in lay.logical(values).items()}


def _out_shape(call, out: dict, out_layout: str, spatial: str) -> list:
    lay = _parsed(call, out_layout, spatial)
    return [simplify(as_expr(v, "int64")) for v in lay.shape(out)] if lay.is_split else [out[c] for c in out_layout]


def _pool_rule(spatial: str):
    k = len(spatial)

    def infer(call: Call, ctx) -> TensorStructInfo:
        x = tensor_arg(call, 0)
        a = call.attrs
        d = _layout_dims(call, x, a.layout, spatial)
        if d is None:
            return tensor(None, x.dtype, x.vdevice, len(_parsed(call, a.out_layout, spatial)))
        out = {"N": d["N"], "C": d["C"]}
        for i, c in enumerate(spatial):
            pad = a.padding[i] + a.padding[i + k]
            span = d[c] + pad - a.dilation[i] * (a.pool_size[i] - 1) - 1
            if a.ceil_mode:
                out[c] = simplify((span + a.strides[i] - 1) // a.strides[i] + 1)
            else:
                out[c] = simplify(span // a.strides[i] + 1)
            n = as_int(out[c])
            if n is not None and n <= 0:
                raise ValueError(
                    f"{call.op.name}: pool_size {a.pool_size} is larger than the padded input {shape_str(shape_values(x))}"
                )
        return tensor(_out_shape(call, out, a.out_layout, spatial), x.dtype, x.vdevice)

    return infer


def _adaptive_rule(spatial: str):
    def infer(call: Call, ctx) -> TensorStructInfo:
        x = tensor_arg(call, 0)
        a = call.attrs
        d = _layout_dims(call, x, a.layout, spatial)
        if d is None:
            return tensor(None, x.dtype, x.vdevice, len(_parsed(call, a.out_layout, spatial)))
        if a.output_size is not None:
            d = dict(d, **{c: as_expr(s, "int64") for c, s in zip(spatial, a.output_size)})
        return tensor(_out_shape(call, d, a.out_layout, spatial), x.dtype, x.vdevice)

    return infer


for _k, _s in _SPATIAL.items():
    register(f"nn.max_pool{_k}d", _pool_rule(_s), arg_names=("data",))
    register(f"nn.avg_pool{_k}d", _pool_rule(_s), arg_names=("data",))
    register(f"nn.adaptive_avg_pool{_k}d", _adaptive_rule(_s), arg_names=("data",))


def _pool(kind: str, k: int, data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad,
          layout, out_layout) -> Call:
    attrs = _POOL_ATTRS[k](
        _tuple(pool_size, k, "pool_size"), _tuple(strides, k, "strides"), expand_padding(padding, k),
        _tuple(dilation, k, "dilation"), bool(ceil_mode), bool(count_include_pad), layout, out_layout or layout,
    )
    return make_call(f"nn.{kind}_pool{k}d", [data], attrs)


def max_pool1d(data, pool_size=(1,), strides=(1,), padding=(0, 0), dilation=(1,), ceil_mode: bool = False,
               count_include_pad: bool = False, layout: str = "NCW", out_layout: str | None = None) -> Call:
    return _pool("max", 1, data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, out_layout)


def max_pool2d(data, pool_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), ceil_mode: bool = False,
               count_include_pad: bool = False, layout: str = "NCHW", out_layout: str | None = None) -> Call:
    return _pool("max", 2, data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, out_layout)


def max_pool3d(data, pool_size=(1, 1, 1), strides=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1),
               ceil_mode: bool = False, count_include_pad: bool = False, layout: str = "NCDHW",
               out_layout: str | None = None) -> Call:
    return _pool("max", 3, data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, out_layout)


def avg_pool1d(data, pool_size=(1,), strides=(1,), padding=(0, 0), dilation=(1,), ceil_mode: bool = False,
               count_include_pad: bool = False, layout: str = "NCW", out_layout: str | None = None) -> Call:
    return _pool("avg", 1, data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, out_layout)


def avg_pool2d(data, pool_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), ceil_mode: bool = False,
               count_include_pad: bool = False, layout: str = "NCHW", out_layout: str | None = None) -> Call:
    return _pool("avg", 2, data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, out_layout)


def avg_pool3d(data, pool_size=(1, 1, 1), strides=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1),
               ceil_mode: bool = False, count_include_pad: bool = False, layout: str = "NCDHW",
               out_layout: str | None = None) -> Call:
    return _pool("avg", 3, data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, out_layout)


def _adaptive(k: int, data, output_size, layout, out_layout) -> Call:
    size = None if output_size is None else _tuple(output_size, k, "output_size")
    return make_call(f"nn.adaptive_avg_pool{k}d", [data], _ADAPTIVE_ATTRS[k](size, layout, out_layout or layout))


def adaptive_avg_pool1d(data, output_size=None, layout: str = "NCW", out_layout: str | None = None) -> Call:
    return _adaptive(1, data, output_size, layout, out_layout)


def adaptive_avg_pool2d(data, output_size=None, layout: str = "NCHW", out_layout: str | None = None) -> Call:
    return _adaptive(2, data, output_size, layout, out_layout)


def adaptive_avg_pool3d(data, output_size=None, layout: str = "NCDHW", out_layout: str | None = None) -> Call:
    return _adaptive(3, data, output_size, layout, out_layout)
