"""ONNX ImageDecoder (opset 20+) and Col2Im (opset 18+) as numpy-backed packed functions.

- ImageDecoder turns encoded bytes (BMP, JPEG, JPEG 2000, PNG, PNM, TIFF, WebP) into an
  ``[H, W, C]`` uint8 image with Pillow; the size depends on the data.
- Col2Im's ``image_shape`` and ``block_shape`` are inputs, so its output shape depends on
  their values when they are not constants.

Both are called through ``call_pure_packed`` with an unknown-shape result that is then
``match_cast`` to the output shape the model declares (checked at run time) or, if none
is declared, to fresh symbolic dims.
"""

from __future__ import annotations

import io

import numpy as np

from ember import relax, tir
from ember.relax import op as R
from ember.runtime import register_func

from .common import dtype_of, shape_of
from .registry import converter

_DECODE = "ember.onnx.image_decode"
_COL2IM = "ember.onnx.col2im"
_FORMATS = ("RGB", "BGR", "Grayscale")


def _nd(a: np.ndarray):
    from ember.runtime import ndarray

    return ndarray.array(np.ascontiguousarray(a))


@register_func(_DECODE, override=True)
def _image_decode(data, pixel_format):
    try:
        import PIL.Image
    except ImportError as err:  # pragma: no cover - Pillow is a dependency of the tests
        raise RuntimeError("ImageDecoder needs Pillow (pip install pillow)") from err
    img = PIL.Image.open(io.BytesIO(data.numpy().tobytes()))
    fmt = _FORMATS[int(pixel_format)]
    if fmt == "Grayscale":
        pixels = np.asarray(img.convert("L"))[:, :, None]
    else:
        pixels = np.asarray(img.convert("RGB"))
        if fmt == "BGR":
            pixels = pixels[:, :, ::-1]
    return _nd(pixels.astype("uint8"))


def _bind(ctx, value, dims_or_none, rank: int, dtype: str, hint: str):
    dims = [tir.Var(f"{hint}{i}", "int64") if d is None else d for i, d in enumerate(dims_or_none or [None] * rank)]
    return ctx.bb.match_cast(value, relax.TensorStructInfo(dims, dtype))


@converter("ImageDecoder", since=20)
def image_decoder(ctx, node, inputs, attrs):
    fmt = attrs.get("pixel_format", "RGB")
    if fmt not in _FORMATS:
        raise ctx.error(f"ImageDecoder: pixel_format must be one of {_FORMATS}, got {fmt!r}")
    call = R.call_pure_packed(_DECODE, inputs[0], relax.PrimValue(_FORMATS.index(fmt)),
                              sinfo_args=relax.TensorStructInfo(None, "uint8", ndim=3))
    value = ctx.emit(call)
    declared = ctx.declared_shape(node.output[0])
    channels = 1 if fmt == "Grayscale" else 3
    return _bind(ctx, value, declared or [None, None, channels], 3, "uint8", "image_dim")


@register_func(_COL2IM, override=True)
def _col2im(x, image_shape, block_shape, dilations, pads, strides):
    data = x.numpy()
    image = [int(v) for v in image_shape.numpy()]
    block = [int(v) for v in block_shape.numpy()]
    dil, pad, stride = (np.asarray(a.numpy(), "int64") for a in (dilations, pads, strides))
    rank = len(image)
    n, cb, _ = data.shape
    c = cb // int(np.prod(block))
    padded = [image[i] + pad[i] + pad[i + rank] for i in range(rank)]
    counts = [(padded[i] - dil[i] * (block[i] - 1) - 1) // stride[i] + 1 for i in range(rank)]
    out = np.zeros([n, c] + padded, data.dtype)
    cols = data.reshape([n, c] + block + counts)
    for kidx in np.ndindex(*block):
        for pidx in np.ndindex(*counts):
            where = tuple(pidx[i] * stride[i] + kidx[i] * dil[i] for i in range(rank))
            out[(slice(None), slice(None)) + where] += cols[(slice(None), slice(None)) + kidx + pidx]
    crop = tuple(slice(pad[i], pad[i] + image[i]) for i in range(rank))
    return _nd(out[(slice(None), slice(None)) + crop])


@converter("Col2Im", since=18)
def col2im(ctx, node, inputs, attrs):
    x, image_shape, block_shape = inputs
    dims, ishape = shape_of(x), shape_of(image_shape)
    if dims is None or len(dims) != 3 or ishape is None or not isinstance(ishape[0], int):
        raise ctx.error("Col2Im: the input must be 3-D and image_shape of static length")
    rank = ishape[0]

    def ints(name, default):
        return relax.const(np.asarray(attrs.get(name, default), "int64").reshape(-1))

    call = R.call_pure_packed(_COL2IM, x, image_shape, block_shape, ints("dilations", [1] * rank),
                              ints("pads", [0] * 2 * rank), ints("strides", [1] * rank),
                              sinfo_args=relax.TensorStructInfo(None, dtype_of(x), ndim=rank + 2))
    value = ctx.emit(call)
    return _bind(ctx, value, ctx.declared_shape(node.output[0]), rank + 2, dtype_of(x), "col2im_dim")
