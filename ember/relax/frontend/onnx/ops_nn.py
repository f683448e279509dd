"""ONNX converters: convolution and pooling — Conv, ConvTranspose, MaxPool, AveragePool,
LpPool, GlobalAveragePool, GlobalMaxPool, GlobalLpPool (NCHW-style layouts, 1-D to 3-D).

``auto_pad`` (SAME_UPPER / SAME_LOWER / VALID) is resolved to explicit pads from the
static input shape; ONNX's ``pads`` order (all begins, then all ends) is Relax's.
"""

from __future__ import annotations

import numpy as np

from ... import op as R
from ...expr import const
from .common import ndim_of, shape_of
from .ops_elementwise import scalar
from .registry import converter

_CONV = {1: R.nn.conv1d, 2: R.nn.conv2d, 3: R.nn.conv3d}
_MAX_POOL = {1: R.nn.max_pool1d, 2: R.nn.max_pool2d, 3: R.nn.max_pool3d}
_AVG_POOL = {1: R.nn.avg_pool1d, 2: R.nn.avg_pool2d, 3: R.nn.avg_pool3d}
_LAYOUT = {1: ("NCW", "OIW"), 2: ("NCHW", "OIHW"), 3: ("NCDHW", "OIDHW")}


def resolve_pads(ctx, attrs, in_dims, kernel, strides, dilations) -> list[int]:
    """Explicit pads (begins then ends) from ``pads`` / ``auto_pad``."""
    k = len(kernel)
    auto = attrs.get("auto_pad", "NOTSET")
    if auto in ("NOTSET", ""):
        return list(attrs.get("pads", [0] * (2 * k)))
    if auto == "VALID":
        return [0] * (2 * k)
    begins, ends = [], []
    for d, kk, s, dl in zip(in_dims, kernel, strides, dilations, strict=True):
        if not isinstance(d, int):
            raise ctx.error(f"auto_pad={auto} needs static spatial dims, got {d}")
        out = -(-d // s)
        total = max((out - 1) * s + (kk - 1) * dl + 1 - d, 0)
        small, big = total // 2, total - total // 2
        begins.append(small if auto == "SAME_UPPER" else big)
        ends.append(big if auto == "SAME_UPPER" else small)
    return begins + ends


def _spatial(ctx, x, attrs, kernel):
    k = len(kernel)
    strides = list(attrs.get("strides", [1] * k))
    dilations = list(attrs.get("dilations", [1] * k))
    pads = resolve_pads(ctx, attrs, shape_of(x)[2:], kernel, strides, dilations)
    return strides, dilations, pads


def _bias(ctx, out, bias, k):
    if bias is None:
        return out
    b = ctx.emit(R.reshape(bias, [-1] + [1] * k))
    return R.add(ctx.emit(out), b)


@converter("Conv", since=1)
def conv(ctx, node, inputs, attrs):
    x, w = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    kernel = attrs.get("kernel_shape") or shape_of(w)[2:]
    k = len(kernel)
    if k not in _CONV:
        raise ctx.error(f"Conv with {k} spatial dims is not supported")
    strides, dilations, pads = _spatial(ctx, x, attrs, kernel)
    data_layout, kernel_layout = _LAYOUT[k]
    out = _CONV[k](x, w, strides=strides, padding=pads, dilation=dilations, groups=attrs.get("group", 1),
                   data_layout=data_layout, kernel_layout=kernel_layout)
    return _bias(ctx, out, bias, k)


@converter("ConvTranspose", since=1)
def conv_transpose(ctx, node, inputs, attrs):
    x, w = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    kernel = list(attrs.get("kernel_shape") or shape_of(w)[2:])
    k = len(kernel)
    if k not in (1, 2, 3):
        raise ctx.error(f"ConvTranspose with {k} spatial dims is not supported (1-D to 3-D are)")
    strides = list(attrs.get("strides", [1] * k))
    dilations = list(attrs.get("dilations", [1] * k))
    out_pad = list(attrs.get("output_padding", [0] * k))
    in_dims = shape_of(x)[2:]
    auto = attrs.get("auto_pad", "NOTSET")
    if "output_shape" in attrs or auto in ("SAME_UPPER", "SAME_LOWER"):
        target = list(attrs["output_shape"])[-k:] if "output_shape" in attrs else \
            [d * s for d, s in zip(in_dims, strides, strict=True)]
        pads_b, pads_e = [], []
        for i in range(k):
            total = strides[i] * (in_dims[i] - 1) + out_pad[i] + ((kernel[i] - 1) * dilations[i] + 1) - target[i]
            if total < 0:  # the target is larger than the natural output: pad at the end
                out_pad[i] += -total
                total = 0
            if auto == "SAME_LOWER":
                pads_b.append(total - total // 2)
                pads_e.append(total // 2)
            else:
                pads_b.append(total // 2)
                pads_e.append(total - total // 2)
        pads = pads_b + pads_e
    elif auto == "VALID":
        pads = [0] * (2 * k)
    else:
        pads = list(attrs.get("pads", [0] * (2 * k)))
    group = attrs.get("group", 1)
    if any(d != 1 for d in dilations):  # a dilated kernel is the kernel with zeros between taps
        w = ctx.bb.call_te(lambda t: _dilate(t, dilations), w, primfunc_name_hint="dilate_kernel")
        w = ctx.emit(w)
        kernel = [(kk - 1) * d + 1 for kk, d in zip(kernel, dilations, strict=True)]
        dilations = [1] * k
    if k == 1:
        x = ctx.emit(R.expand_dims(x, 2))
        w = ctx.emit(R.expand_dims(w, 2))
        strides, dilations, out_pad = [1] + strides, [1] + dilations, [0] + out_pad
        pads = [0, pads[0], 0, pads[1]]
    if k == 3:
        out = _conv_transpose_as_conv(ctx, x, w, kernel, strides, pads, out_pad, group)
    elif group == 1:
        out = R.nn.conv2d_transpose(x, w, strides=strides, padding=pads, output_padding=out_pad,
                                    dilation=dilations)
    else:  # one transposed convolution per group, concatenated on channels
        cin = shape_of(x)[1]
        parts = []
        for g in range(group):
            lo, hi = g * cin // group, (g + 1) * cin // group
            xg = ctx.emit(R.strided_slice(x, [1], [lo], [hi]))
            wg = ctx.emit(R.strided_slice(w, [0], [lo], [hi]))
            parts.append(ctx.emit(R.nn.conv2d_transpose(xg, wg, strides=strides, padding=pads,
                                                        output_padding=out_pad, dilation=dilations)))
        out = R.concat(parts, 1)
    if k == 1:
        out = R.squeeze(ctx.emit(out), [2])
    return _bias(ctx, out, bias, k)


def _conv_transpose_as_conv(ctx, x, w, kernel, strides, pads, out_pad, group: int):
    """A transposed convolution (any rank, undilated kernel) as a plain one: zeros inserted
    between input elements (``strides``), padded by ``kernel - 1 - pads`` (negative:
    cropped; ``output_padding`` added at the end), convolved with the kernel flipped and
    its in/out channels swapped per group."""
    k = len(kernel)
    if any(s != 1 for s in strides):
        x = ctx.emit(ctx.bb.call_te(lambda t: _dilate(t, strides), x, primfunc_name_hint="dilate_input"))
    before = [kernel[i] - 1 - pads[i] for i in range(k)]
    after = [kernel[i] - 1 - pads[i + k] + out_pad[i] for i in range(k)]
    if any(v > 0 for v in before + after):
        width = [0, 0, 0, 0] + [p for i in range(k) for p in (max(before[i], 0), max(after[i], 0))]
        x = ctx.emit(R.nn.pad(x, width))
    if any(v < 0 for v in before + after):
        dims = shape_of(x)[2:]
        x = ctx.emit(R.strided_slice(x, list(range(2, 2 + k)), [max(-b, 0) for b in before],
                                     [dims[i] - max(-after[i], 0) for i in range(k)]))
    cin, cout_g = shape_of(w)[0], shape_of(w)[1]
    # [Cin, Cout/g, *K] -> [Cout, Cin/g, *K], spatially flipped
    wg = ctx.emit(R.reshape(w, [group, cin // group, cout_g] + list(kernel)))
    wg = ctx.emit(R.permute_dims(wg, [0, 2, 1] + list(range(3, 3 + k))))
    wt = ctx.emit(R.reshape(wg, [group * cout_g, cin // group] + list(kernel)))
    for axis in range(2, 2 + k):
        wt = ctx.emit(R.flip(wt, axis))
    return _CONV[k](x, wt, strides=[1] * k, padding=[0] * (2 * k), dilation=[1] * k, groups=group,
                    data_layout=_LAYOUT[k][0], kernel_layout=_LAYOUT[k][1])


def _dilate(w, dilations):
    from ember import te, tir

    k = len(dilations)
    lead = len(w.shape) - k
    shape = list(w.shape[:lead]) + [(w.shape[lead + i] - 1) * d + 1 for i, d in enumerate(dilations)]

    def body(*idx):
        cond = None
        src = list(idx[:lead])
        for i, d in enumerate(dilations):
            j = idx[lead + i]
            c = tir.floormod(j, d) == 0
            cond = c if cond is None else tir.all(cond, c)
            src.append(tir.floordiv(j, d))
        return tir.Select(cond, w(*src), tir.const(0, w.dtype))

    return te.compute(shape, body, name="T_dilate")


def _pool_args(ctx, x, attrs, allow_ceil_fix=True):
    """Kernel, strides, dilations, pads and ceil_mode.  ONNX drops a ceil-mode window that
    would start in the end padding; that output size is reached with floor mode and
    enough end padding (pads never win a max, and an average without padding counts them
    out), so ceil_mode is resolved here whenever the spatial dims are static."""
    kernel = list(attrs["kernel_shape"])
    strides, dilations, pads = _spatial(ctx, x, attrs, kernel)
    ceil = bool(attrs.get("ceil_mode", 0))
    dims = shape_of(x)[2:]
    if ceil and allow_ceil_fix and all(isinstance(d, int) for d in dims):
        k = len(kernel)
        pads = list(pads)
        for i in range(k):
            eff = (kernel[i] - 1) * dilations[i] + 1
            span = dims[i] + pads[i] + pads[i + k] - eff
            out = -(-span // strides[i]) + 1
            if (out - 1) * strides[i] >= dims[i] + pads[i]:
                out -= 1
            pads[i + k] = max(pads[i + k], (out - 1) * strides[i] + eff - dims[i] - pads[i])
        ceil = False
    return kernel, strides, dilations, pads, ceil


@converter("MaxPool", since=1)
def max_pool(ctx, node, inputs, attrs):
    x = inputs[0]
    kernel, strides, dilations, pads, ceil = _pool_args(ctx, x, attrs)
    k = len(kernel)
    if len(node.output) > 1 and node.output[1]:
        return _max_pool_with_indices(ctx, x, kernel, strides, dilations, pads, ceil,
                                      int(attrs.get("storage_order", 0)))
    return _MAX_POOL[k](x, kernel, strides, pads, dilations, ceil_mode=ceil)


def _max_pool_with_indices(ctx, x, kernel, strides, dilations, pads, ceil, storage_order: int):
    """MaxPool's values and Indices (flat positions in ``x``, row-major, or column-major
    over the spatial dims with ``storage_order=1``): the window elements are stacked on a
    new leading axis (one strided slice of the padded input per kernel offset) and its
    argmax picks the first maximum and its precomputed position."""
    dims = shape_of(x)
    k = len(kernel)
    if ceil or dims is None or not all(isinstance(d, int) for d in dims):
        raise ctx.error("MaxPool's Indices output needs static input dims")
    n, c, spatial = dims[0], dims[1], dims[2:]
    eff = [(kernel[i] - 1) * dilations[i] + 1 for i in range(k)]
    outs = [(spatial[i] + pads[i] + pads[i + k] - eff[i]) // strides[i] + 1 for i in range(k)]
    dtype = str(x.struct_info.dtype)
    low = -np.inf if dtype.startswith(("float", "bfloat")) else float(np.iinfo(np.dtype(dtype)).min)
    width = [0, 0, 0, 0] + [w for i in range(k) for w in (pads[i], pads[i + k])]
    xp = ctx.emit(R.nn.pad(x, width, pad_value=low))  # padding never wins the max
    axes = list(range(2, 2 + k))
    if storage_order:
        scale = [int(np.prod(spatial[:i])) for i in range(k)]
    else:
        scale = [int(np.prod(spatial[i + 1:])) for i in range(k)]
    windows, positions = [], []
    grids = np.meshgrid(*[np.arange(o) for o in outs], indexing="ij")
    for offset in np.ndindex(*kernel):
        begin = [offset[i] * dilations[i] for i in range(k)]
        end = [begin[i] + (outs[i] - 1) * strides[i] + 1 for i in range(k)]
        win = ctx.emit(R.strided_slice(xp, axes, begin, end, strides))
        windows.append(ctx.emit(R.expand_dims(win, 0)))
        pos = sum((grids[i] * strides[i] + begin[i] - pads[i]) * scale[i] for i in range(k))
        positions.append(pos)
    stacked = ctx.emit(R.concat(windows, 0))  # [K, N, C, *outs]
    best = ctx.emit(R.argmax(stacked, 0, keepdims=True))
    values = ctx.emit(R.max(stacked, 0))
    base = (np.arange(n * c, dtype="int64") * int(np.prod(spatial))).reshape(1, n, c, *([1] * k))
    table = np.stack(positions).astype("int64").reshape(len(positions), 1, 1, *outs) + base
    index = ctx.emit(R.gather_elements(const(table), ctx.emit(R.astype(best, "int64")), 0))
    return [values, ctx.emit(R.squeeze(index, [0]))]


@converter("AveragePool", since=1)
def avg_pool(ctx, node, inputs, attrs):
    x = inputs[0]
    include = bool(attrs.get("count_include_pad", 0))
    kernel, strides, dilations, pads, ceil = _pool_args(ctx, x, attrs, allow_ceil_fix=not include)
    k = len(kernel)
    return _AVG_POOL[k](x, kernel, strides, pads, dilations, ceil_mode=ceil, count_include_pad=include)


@converter("LpPool", since=1)
def lp_pool(ctx, node, inputs, attrs):
    x = inputs[0]
    p = float(attrs.get("p", 2))
    kernel, strides, dilations, pads, ceil = _pool_args(ctx, x, attrs, allow_ceil_fix=False)
    k = len(kernel)
    powered = ctx.emit(R.power(R.abs(x), scalar(x, p)))
    avg = ctx.emit(_AVG_POOL[k](powered, kernel, strides, pads, dilations,
                                ceil_mode=ceil, count_include_pad=True))
    total = ctx.emit(R.multiply(avg, scalar(x, float(np.prod(kernel)))))
    return R.power(total, scalar(x, 1.0 / p))


def _global(fn):
    def convert(ctx, node, inputs, attrs):
        x = inputs[0]
        return fn(ctx, x, list(range(2, ndim_of(x))), attrs)

    return convert


converter("GlobalAveragePool", since=1)(_global(lambda ctx, x, axes, attrs: R.mean(x, axes, keepdims=True)))
converter("GlobalMaxPool", since=1)(_global(lambda ctx, x, axes, attrs: R.max(x, axes, keepdims=True)))


@converter("GlobalLpPool", since=1)
def global_lp_pool(ctx, node, inputs, attrs):
    x = inputs[0]
    p = float(attrs.get("p", 2))
    axes = list(range(2, ndim_of(x)))
    s = ctx.emit(R.sum(ctx.emit(R.power(R.abs(x), scalar(x, p))), axes, keepdims=True))
    return R.power(s, scalar(x, 1.0 / p))
