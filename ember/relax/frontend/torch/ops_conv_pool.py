"""Convolution, pooling, resize and padding converters: conv1d/2d/3d and the generic
``convolution`` (grouped, dilated, transposed 1-D/2-D), max/avg pooling 1-3-D, adaptive
average pooling, upsample nearest/bilinear/bicubic, constant/reflect/replicate padding."""

from __future__ import annotations

from ember.relax import op as R

from .registry import converter


def _tuple(v, n):
    v = list(v) if isinstance(v, list | tuple) else [v]
    return v * n if len(v) == 1 else v


def _add_bias(ctx, out, bias, nspatial):
    if bias is None:
        return out
    c = ctx.shape(bias)[0]
    return R.add(ctx.emit(out), ctx.emit(R.reshape(bias, [1, c] + [1] * nspatial)))


_CONV = {1: R.nn.conv1d, 2: R.nn.conv2d, 3: R.nn.conv3d}


def _conv(ctx, x, w, bias, stride, padding, dilation, groups):
    n = ctx.ndim(x) - 2
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        else:  # "same": stride 1; pad so the output keeps the input size
            k = ctx.shape(w)[2:]
            dil = _tuple(dilation, n)
            total = [d * (kk - 1) for d, kk in zip(dil, k)]
            padding = [t // 2 for t in total] + [t - t // 2 for t in total]
    pad = _tuple(padding, n)
    pad = pad + pad if len(pad) == n else pad
    out = _CONV[n](x, w, _tuple(stride, n), pad, _tuple(dilation, n), int(groups))
    return _add_bias(ctx, out, bias, n)


@converter("aten.conv1d.default", "aten.conv2d.default", "aten.conv3d.default", "aten.conv1d.padding",
           "aten.conv2d.padding", "aten.conv3d.padding")
def conv(ctx, x, w, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(ctx, x, w, bias, stride, padding, dilation, groups)


@converter("aten.convolution.default", "aten._convolution.default")
def convolution(ctx, x, w, bias, stride, padding, dilation, transposed, output_padding, groups, *_):
    if transposed:
        return _conv_transpose(ctx, x, w, bias, stride, padding, output_padding, groups, dilation)
    return _conv(ctx, x, w, bias, stride, padding, dilation, groups)


@converter("aten.conv_transpose1d.default", "aten.conv_transpose2d.input")
def conv_transpose(ctx, x, w, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(ctx, x, w, bias, stride, padding, output_padding, groups, dilation)


def _conv_transpose(ctx, x, w, bias, stride, padding, output_padding, groups, dilation):
    n = ctx.ndim(x) - 2
    if n == 1:  # as a 2-D transposed convolution over a height of 1
        x2 = ctx.emit(R.expand_dims(x, 2))
        w2 = ctx.emit(R.expand_dims(w, 2))
        out = ctx.emit(_conv_transpose(ctx, x2, w2, None, [1] + _tuple(stride, 1), [0] + _tuple(padding, 1),
                                       [0] + _tuple(output_padding, 1), groups, [1] + _tuple(dilation, 1)))
        return _add_bias(ctx, R.squeeze(out, [2]), bias, 1)
    if n != 2:
        raise NotImplementedError(f"{n}-D transposed convolution (supported: 1-D, 2-D)")
    if int(groups) != 1 or any(d != 1 for d in _tuple(dilation, 2)):
        raise NotImplementedError(f"transposed convolution with groups={groups}, dilation={list(_tuple(dilation, 2))} "
                                  "(supported: groups=1, dilation=1)")
    pad = _tuple(padding, 2)
    out = R.nn.conv2d_transpose(x, w, _tuple(stride, 2), pad + pad, _tuple(output_padding, 2),
                                _tuple(dilation, 2), int(groups))
    return _add_bias(ctx, out, bias, 2)


_MAX_POOL = {1: R.nn.max_pool1d, 2: R.nn.max_pool2d, 3: R.nn.max_pool3d}
_AVG_POOL = {1: R.nn.avg_pool1d, 2: R.nn.avg_pool2d, 3: R.nn.avg_pool3d}


def _pool_input(ctx, x, n):
    """Pooling without a batch dim (C, *spatial) gets one added; returns (x, added)."""
    if ctx.ndim(x) == n + 1:
        return ctx.emit(R.expand_dims(x, 0)), True
    return x, False


@converter("aten.max_pool1d.default", "aten.max_pool2d.default", "aten.max_pool3d.default",
           "aten.max_pool2d_with_indices.default", "aten.max_pool3d_with_indices.default",
           "aten.max_pool1d_with_indices.default")
def max_pool(ctx, x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    key = str(ctx.node.target)
    n = int(key.split("max_pool")[1][0])
    x, added = _pool_input(ctx, x, n)
    stride = _tuple(stride, n) if stride not in (None, [], ()) else _tuple(kernel, n)
    pad = _tuple(padding, n)
    out = _MAX_POOL[n](x, _tuple(kernel, n), stride, pad + pad, _tuple(dilation, n), bool(ceil_mode))
    if added:
        out = R.squeeze(ctx.emit(out), [0])
    return [out, None] if "with_indices" in key else out


@converter("aten.avg_pool1d.default", "aten.avg_pool2d.default", "aten.avg_pool3d.default")
def avg_pool(ctx, x, kernel, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
             divisor_override=None):
    if divisor_override is not None:
        raise NotImplementedError("avg_pool divisor_override")
    n = int(str(ctx.node.target).split("avg_pool")[1][0])
    x, added = _pool_input(ctx, x, n)
    stride = _tuple(stride, n) if stride not in (None, [], ()) else _tuple(kernel, n)
    pad = _tuple(padding, n)
    out = _AVG_POOL[n](x, _tuple(kernel, n), stride, pad + pad, [1] * n, bool(ceil_mode), bool(count_include_pad))
    return R.squeeze(ctx.emit(out), [0]) if added else out


_ADAPTIVE = {1: R.nn.adaptive_avg_pool1d, 2: R.nn.adaptive_avg_pool2d, 3: R.nn.adaptive_avg_pool3d}


@converter("aten.adaptive_avg_pool1d.default", "aten.adaptive_avg_pool2d.default",
           "aten.adaptive_avg_pool3d.default", "aten._adaptive_avg_pool2d.default",
           "aten._adaptive_avg_pool3d.default", "aten._adaptive_avg_pool1d.default")
def adaptive_avg_pool(ctx, x, output_size):
    n = int(str(ctx.node.target).split("adaptive_avg_pool")[1][0])
    x, added = _pool_input(ctx, x, n)
    spatial = ctx.shape(x)[2:]
    size = [s if o is None else o for s, o in zip(spatial, _tuple(output_size, n))]
    out = _ADAPTIVE[n](x, size)
    return R.squeeze(ctx.emit(out), [0]) if added else out


# -- resize ---------------------------------------------------------------------------------

def _out_size(ctx, x, output_size, scales):
    spatial = ctx.shape(x)[2:]
    if output_size not in (None, [], ()):
        return list(output_size)
    scales = _tuple(scales, len(spatial))
    return [int(s * f) for s, f in zip(spatial, scales)]


def _resize(ctx, x, size, method, align_corners):
    if method == "nearest_neighbor":
        mode, rounding = "asymmetric", "floor"
    else:
        mode, rounding = ("align_corners" if align_corners else "half_pixel"), "round"
    return R.image.resize2d(x, size, None, "NCHW", method, mode, rounding, -0.75)


@converter("aten.upsample_nearest2d.vec", "aten.upsample_bilinear2d.vec", "aten.upsample_bicubic2d.vec",
           "aten._upsample_nearest_exact2d.vec")
def upsample_vec(ctx, x, output_size, *rest):
    key = str(ctx.node.target)
    if "nearest" in key:
        align, scales = False, rest[0]
    else:
        align, scales = rest
    method = "nearest_neighbor" if "nearest" in key else "cubic" if "bicubic" in key else "linear"
    return _resize(ctx, x, _out_size(ctx, x, output_size, scales), method, bool(align))


@converter("aten.upsample_nearest2d.default", "aten.upsample_bilinear2d.default",
           "aten.upsample_bicubic2d.default")
def upsample(ctx, x, output_size, *rest):
    key = str(ctx.node.target)
    if "nearest" in key:
        align, scales = False, [s for s in rest if s is not None] or None
    else:
        align, scales = rest[0], [s for s in rest[1:] if s is not None] or None
    method = "nearest_neighbor" if "nearest" in key else "cubic" if "bicubic" in key else "linear"
    return _resize(ctx, x, _out_size(ctx, x, output_size, scales), method, bool(align))


# -- padding --------------------------------------------------------------------------------

def _pairs(ctx, x, pad):
    """torch's pad list (last dim first, (before, after) pairs) → per-axis pairs."""
    nd = ctx.ndim(x)
    pairs = [[0, 0] for _ in range(nd)]
    for i in range(len(pad) // 2):
        pairs[nd - 1 - i] = [pad[2 * i], pad[2 * i + 1]]
    return pairs


@converter("aten.constant_pad_nd.default")
def constant_pad(ctx, x, pad, value=0):
    pairs = _pairs(ctx, x, pad)
    shape = ctx.shape(x)
    crops = [(i, -min(b, 0), shape[i] + min(a, 0)) for i, (b, a) in enumerate(pairs) if b < 0 or a < 0]
    if crops:
        x = ctx.emit(R.strided_slice(x, [c[0] for c in crops], [c[1] for c in crops], [c[2] for c in crops]))
    pairs = [[max(b, 0), max(a, 0)] for b, a in pairs]
    if all(b == 0 and a == 0 for b, a in pairs):
        return x
    return R.nn.pad(x, pairs, "constant", float(value))


def _edge_pad(ctx, x, pairs, reflect: bool):
    for axis, (before, after) in enumerate(pairs):
        if not before and not after:
            continue
        n = ctx.shape(x)[axis]
        parts = []
        if before:
            if reflect:
                parts.append(ctx.emit(R.flip(ctx.emit(R.strided_slice(x, [axis], [1], [before + 1])), axis)))
            else:
                parts.append(ctx.emit(R.repeat(ctx.emit(R.strided_slice(x, [axis], [0], [1])), before, axis)))
        parts.append(x)
        if after:
            if reflect:
                parts.append(ctx.emit(R.flip(ctx.emit(R.strided_slice(x, [axis], [n - after - 1], [n - 1])), axis)))
            else:
                parts.append(ctx.emit(R.repeat(ctx.emit(R.strided_slice(x, [axis], [n - 1], [n])), after, axis)))
        x = ctx.emit(R.concat(parts, axis))
    return x


@converter("aten.reflection_pad1d.default", "aten.reflection_pad2d.default", "aten.reflection_pad3d.default",
           "aten.replication_pad1d.default", "aten.replication_pad2d.default", "aten.replication_pad3d.default")
def edge_pad(ctx, x, pad):
    return _edge_pad(ctx, x, _pairs(ctx, x, pad), "reflection" in str(ctx.node.target))


@converter("aten.pad.default")
def pad(ctx, x, pad, mode="constant", value=None):
    if mode == "constant":
        return constant_pad(ctx, x, pad, 0 if value is None else value)
    if mode in ("reflect", "replicate"):
        return _edge_pad(ctx, x, _pairs(ctx, x, pad), mode == "reflect")
    if mode == "circular":
        pairs = _pairs(ctx, x, pad)
        for axis, (before, after) in enumerate(pairs):
            if before or after:
                n = ctx.shape(x)[axis]
                parts = [ctx.emit(R.strided_slice(x, [axis], [n - before], [n]))] if before else []
                parts.append(x)
                if after:
                    parts.append(ctx.emit(R.strided_slice(x, [axis], [0], [after])))
                x = ctx.emit(R.concat(parts, axis))
        return x
    raise NotImplementedError(f"pad mode {mode!r} (supported: constant, reflect, replicate, circular)")


_GRID_METHOD = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_GRID_PADDING = {0: "zeros", 1: "border", 2: "reflection"}


@converter("aten.grid_sampler_2d.default", "aten.grid_sampler.default")
def grid_sampler_2d(ctx, x, grid, interpolation_mode=0, padding_mode=0, align_corners=False):
    """``F.grid_sample`` on NCHW input; the (N, H, W, 2) grid is made channel-first for topi."""
    from ember import topi

    grid_cf = ctx.emit(R.permute_dims(grid, [0, 3, 1, 2]))
    method, padding = _GRID_METHOD[int(interpolation_mode)], _GRID_PADDING[int(padding_mode)]
    return ctx.bb.call_te(lambda d, g: topi.image.grid_sample(d, g, method, "NCHW", padding, bool(align_corners)),
                          x, grid_cf, primfunc_name_hint="grid_sample")
