"""ONNX converters: ops that create or rearrange tensors — Pad (constant, reflect, edge,
wrap; negative pads crop), ConstantOfShape, Range, Trilu, EyeLike, OneHot, DepthToSpace,
SpaceToDepth, BitCast.

Pad's non-constant modes are one TE kernel each (an index map per axis), emitted with
``call_te`` since Relax's ``nn.pad`` covers only the constant mode.
"""

from __future__ import annotations

import numpy as np

from ember import te, tir

from ... import op as R
from ...expr import PrimValue, ShapeExpr, const
from .common import dtype_of, ndim_of, norm_axes, np_dtype, onnx_dtype, shape_of
from .ops_tensor import known_ints, shape_arg
from .shape_values import as_tensor
from .ops_tensor_dynamic import constant_of_shape_runtime, range_runtime
from .registry import converter


def _index_map(mode: str, i, before: int, dim):
    j = i - before
    if mode == "edge":
        return tir.max(tir.min(j, dim - 1), 0)
    if mode == "wrap":
        return tir.floormod(j, dim)
    period = 2 * (dim - 1)
    k = tir.floormod(j, tir.max(period, 1))
    return tir.Select(dim == 1, tir.const(0, j.dtype), dim - 1 - tir.abs(k - (dim - 1)))


def _pad_te(x, pads, mode, value, out_shape=None):
    """``pads``: begins then ends (ints or PrimExprs read from a run-time tensor)."""
    n = len(x.shape)
    if out_shape is None:
        out_shape = [x.shape[a] + pads[a] + pads[a + n] for a in range(n)]

    def body(*idx):
        if mode == "constant":
            cond = None
            src = []
            for a, i in enumerate(idx):
                j = i - pads[a]
                c = tir.all(j >= 0, j < x.shape[a])
                cond = c if cond is None else tir.all(cond, c)
                src.append(tir.max(tir.min(j, x.shape[a] - 1), 0))
            fill = value(*([0] * len(value.shape))) if hasattr(value, "shape") else tir.const(value, x.dtype)
            return tir.Select(cond, x(*src), fill) if cond is not None else x(*src)
        return x(*[_index_map(mode, i, pads[a], x.shape[a]) for a, i in enumerate(idx)])

    return te.compute(out_shape, body, name="T_pad")


@converter("Pad", since=1)
def pad(ctx, node, inputs, attrs):
    x = inputs[0]
    ndim = ndim_of(x)
    mode = attrs.get("mode", "constant")
    if ctx.opset < 11:
        pads = list(attrs.get("pads", attrs.get("paddings", [])))
        value = attrs.get("value", 0.0)
    elif any(a is not None and ctx.const_value(a) is None for a in (inputs[1:2] + inputs[3:4])):
        return _pad_runtime(ctx, x, inputs, mode)
    else:
        pads = known_ints(ctx, inputs[1], "Pad's pads")
        value = 0
        if len(inputs) > 2 and inputs[2] is not None:
            v = ctx.const_value(inputs[2])
            if v is None:
                value = inputs[2]  # a run-time scalar, read by the kernel
            else:
                value = np.asarray(v).reshape(-1)[0].item() if np.asarray(v).size else 0
        if len(inputs) > 3 and inputs[3] is not None:
            axes = norm_axes(known_ints(ctx, inputs[3], "Pad's axes"), ndim)
            full = [0] * (2 * ndim)
            for i, a in enumerate(axes):
                full[a], full[a + ndim] = pads[i], pads[i + len(axes)]
            pads = full
    crop = any(p < 0 for p in pads)
    if crop:
        dims = shape_of(x)
        axes, begin, end = [], [], []
        for a in range(ndim):
            b, e = max(-pads[a], 0), max(-pads[a + ndim], 0)
            if b or e:
                axes.append(a)
                begin.append(b)
                end.append(dims[a] - e)
        x = ctx.emit(R.strided_slice(x, axes, begin, end))
        pads = [max(p, 0) for p in pads]
    if not any(pads):
        return x
    if not isinstance(value, int | float | bool):
        if mode != "constant" or not any(pads):
            return x if not any(pads) else ctx.bb.call_te(
                lambda t: _pad_te(t, pads, mode, 0), x, primfunc_name_hint=f"pad_{mode}")
        return ctx.bb.call_te(lambda t, v: _pad_te(t, pads, mode, v), x, value, primfunc_name_hint="pad")
    if not (dtype_of(x) or "").startswith(("float", "bfloat")):
        value = int(value)
    if mode == "constant":
        return R.nn.pad(x, [v for a in range(ndim) for v in (pads[a], pads[a + ndim])], "constant", value)
    return ctx.bb.call_te(lambda t: _pad_te(t, pads, mode, value), x, primfunc_name_hint=f"pad_{mode}")


def _pad_runtime(ctx, x, inputs, mode):
    """Pad with pads (and maybe axes) known only at run time: full begin/end tensors, the
    output extents bound to fresh dims, one TE kernel reading the begins."""
    import numpy as np_

    from .ops_tensor_dynamic import _c, _i64
    from .shape_values import dims_tensor, runtime_shape

    ndim = ndim_of(x)
    pads = _i64(ctx, inputs[1])
    axes = inputs[3] if len(inputs) > 3 else None
    if axes is None:
        full = pads
    else:
        k = shape_of(axes)[0]
        ax = _i64(ctx, axes)
        ax = ctx.emit(R.where(R.less(ax, _c(0)), R.add(ax, _c(ndim)), ax))
        onehot = ctx.emit(R.astype(R.equal(R.reshape(ax, [k, 1]), _c(np_.arange(ndim).reshape(1, ndim))), "int64"))
        halves = [ctx.emit(R.strided_slice(pads, [0], [i * k], [(i + 1) * k])) for i in range(2)]
        full = ctx.emit(R.concat([ctx.emit(R.sum(ctx.emit(R.multiply(onehot, R.reshape(h, [k, 1]))), [0]))
                                  for h in halves], 0))
    begins = ctx.emit(R.strided_slice(full, [0], [0], [ndim]))
    ends = ctx.emit(R.strided_slice(full, [0], [ndim], [2 * ndim]))
    out = ctx.emit(R.add(R.add(dims_tensor(ctx, x), begins), ends))
    dims = runtime_shape(ctx, out, "pad")
    value = inputs[2] if len(inputs) > 2 and inputs[2] is not None else None
    args = [x, full] + ([value] if value is not None else [])

    def build(t, p, *v):
        fill = v[0] if v else 0
        return _pad_te(t, [p(a) for a in range(2 * ndim)], mode, fill, dims)

    return ctx.bb.call_te(build, *args, primfunc_name_hint=f"pad_{mode}")


@converter("ConstantOfShape", since=9)
def constant_of_shape(ctx, node, inputs, attrs):
    value = attrs.get("value")
    value = np.zeros(1, "float32") if value is None else np.asarray(value)
    if not isinstance(inputs[0], ShapeExpr) and ctx.const_value(inputs[0]) is None:
        return constant_of_shape_runtime(ctx, inputs[0], value)
    shape = shape_arg(ctx, inputs[0], "ConstantOfShape's shape")
    if all(isinstance(d, int) for d in shape):
        return const(np.full(shape, value.reshape(-1)[0], dtype=value.dtype))
    return R.full(shape, const(value.reshape(())), str(value.dtype))


@converter("Range", since=11)
def range_(ctx, node, inputs, attrs):
    vals = [ctx.const_value(x) for x in inputs]
    symbolic = [isinstance(x, PrimValue) for x in inputs]
    if any(symbolic) and all(v is not None or s for v, s in zip(vals, symbolic, strict=True)) \
            and vals[2] is not None and np.asarray(vals[2]).dtype.kind in "iu" and int(vals[2]) > 0:
        # integer range over symbolic bounds (Range(0, seq_len, 1) in exported transformers)
        start, limit = (x.value if isinstance(x, PrimValue) else int(v) for x, v in zip(inputs[:2], vals[:2]))
        step = int(vals[2])
        if isinstance(start, int) and start == 0 and step == 1:
            n = limit
        else:
            from ember.arith import Analyzer

            n = Analyzer().simplify(tir.max(tir.floordiv(limit - start + (step - 1), step), 0))
        return ctx.bb.call_te(lambda: te.compute((n,), lambda i: (start + i * step).astype("int64"),
                                                 name="T_range"), primfunc_name_hint="range")
    inputs = [as_tensor(ctx, x) for x in inputs]
    if any(v is None for v in vals):
        return range_runtime(ctx, *inputs)
    start, limit, delta = (np.asarray(v).reshape(()) for v in vals)
    return const(np.arange(start, limit, delta).astype(start.dtype))


@converter("Trilu", since=14)
def trilu(ctx, node, inputs, attrs):
    x = inputs[0]
    k = 0
    upper = attrs.get("upper", 1)
    if len(inputs) > 1 and inputs[1] is not None:
        if ctx.const_value(inputs[1]) is None:  # run-time k: one kernel reading it
            def build(t, kk):
                n = len(t.shape)
                return te.compute(t.shape, lambda *i: tir.Select(
                    (i[n - 1] - i[n - 2] >= kk()) if upper else (i[n - 1] - i[n - 2] <= kk()),
                    t(*i), tir.const(0, t.dtype)), name="T_trilu")

            return ctx.bb.call_te(build, x, inputs[1], primfunc_name_hint="trilu")
        k = known_ints(ctx, inputs[1], "Trilu's k")[0]
    return R.triu(x, k) if upper else R.tril(x, k)


@converter("EyeLike", since=9)
def eye_like(ctx, node, inputs, attrs):
    x = inputs[0]
    dims = shape_of(x)
    if dims is None or not all(isinstance(d, int) for d in dims):
        raise ctx.error("EyeLike needs a static input shape")
    dtype = onnx_dtype(attrs["dtype"]) if "dtype" in attrs else dtype_of(x)
    return const(np.eye(dims[0], dims[1], k=attrs.get("k", 0), dtype=np_dtype(dtype)))


@converter("OneHot", since=9)
def one_hot(ctx, node, inputs, attrs):
    indices, depth, values = inputs
    depth_v = ctx.const_value(depth)
    vals = ctx.const_value(values)
    if depth_v is None or vals is None:
        raise ctx.error("OneHot's depth and values must be known at import time")
    d = int(np.asarray(depth_v).reshape(-1)[0])
    idx = indices
    if not (dtype_of(idx) or "").startswith("int"):
        idx = ctx.emit(R.astype(idx, "int64"))
    zero = const(np.array(0, dtype_of(idx)))
    idx = ctx.emit(R.where(R.less(idx, zero), R.add(idx, const(np.array(d, dtype_of(idx)))), idx))
    off, on = np.asarray(vals).reshape(-1)[:2]
    axis = attrs.get("axis", -1)
    out_dtype = str(np.asarray(vals).dtype)
    hot = ctx.emit(R.one_hot(idx, 1.0, 0.0, d, axis))
    onv, offv = const(np.array(on, out_dtype)), const(np.array(off, out_dtype))
    return R.where(R.astype(hot, "bool"), onv, offv)


@converter("DepthToSpace", since=1)
def depth_to_space(ctx, node, inputs, attrs):
    x = inputs[0]
    b = attrs["blocksize"]
    n, c, h, w = shape_of(x)
    if attrs.get("mode", "DCR") == "DCR":
        t = ctx.emit(R.reshape(x, [n, b, b, c // (b * b), h, w]))
        t = ctx.emit(R.permute_dims(t, [0, 3, 4, 1, 5, 2]))
    else:
        t = ctx.emit(R.reshape(x, [n, c // (b * b), b, b, h, w]))
        t = ctx.emit(R.permute_dims(t, [0, 1, 4, 2, 5, 3]))
    return R.reshape(t, [n, c // (b * b), h * b, w * b])


@converter("SpaceToDepth", since=1)
def space_to_depth(ctx, node, inputs, attrs):
    x = inputs[0]
    b = attrs["blocksize"]
    n, c, h, w = shape_of(x)
    mode = attrs.get("mode", "DCR")
    if mode not in ("DCR", "CRD"):
        raise ctx.error(f"SpaceToDepth: mode must be 'DCR' or 'CRD', got {mode!r}")
    t = ctx.emit(R.reshape(x, [n, c, h // b, b, w // b, b]))
    # DCR: the block offset is the outer part of the new channel; CRD: the inner part
    t = ctx.emit(R.permute_dims(t, [0, 3, 5, 1, 2, 4] if mode == "DCR" else [0, 1, 3, 5, 2, 4]))
    return R.reshape(t, [n, c * b * b, h // b, w // b])


@converter("BitCast", since=26)
def bit_cast(ctx, node, inputs, attrs):
    to = np_dtype(onnx_dtype(attrs["to"]))
    value = ctx.const_value(inputs[0])
    if value is not None:
        if np.asarray(value).dtype.itemsize != to.itemsize:
            raise ctx.error(f"BitCast between dtypes of different sizes ({value.dtype} to {to})")
        return const(np.ascontiguousarray(value).view(to))
    src = dtype_of(inputs[0])
    if src is None:
        raise ctx.error("BitCast: the input's element type must be known at import")
    if np_dtype(src).itemsize != to.itemsize:
        raise ctx.error(f"BitCast between dtypes of different sizes ({src} to {to})")
    if src == "bool" or to == np.bool_:
        # bool is one byte holding 0/1: its bits are the value
        return R.astype(inputs[0], str(to)) if src == "bool" else R.not_equal(inputs[0], const(np.zeros((), src)))
    from ember import topi

    return ctx.bb.emit_te(topi.reinterpret, inputs[0], str(to), primfunc_name_hint="bitcast")
