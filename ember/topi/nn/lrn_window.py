"""Local response normalisation (ONNX's LRN) as one kernel: ``x / (bias + alpha/size * s) ** beta``
with ``s`` the sum of squares over a window of ``size`` channels, ONNX's window (channels
``c - (size-1)//2 … c + size//2``, zero outside the channel range).

- ``lrn_channels`` works on any tensor whose axis 1 is the channel axis (``NCHW``): each
  output element adds its ``size`` taps explicitly (no reduction axis), so the kernel is
  injective and a plain elementwise schedule vectorises it along the pixel row.
- ``lrn_nchwc`` works on channel-blocked activations ``(N, C/b, H, W, b)``: per pixel, the
  squares of all channels go, block by block, into a small buffer with one block of zeros on
  each side, and each output vector of ``b`` lanes adds ``size`` unaligned vectors read from
  it (the buffer is flat once lowered, so block and lane of a tap are one offset).
  ``schedule_lrn_nchwc`` gives it its schedule (pixels in parallel, lanes vectorised, the
  buffer per pixel); the relax layout pass (``ConvertLayout``) uses it when an LRN's input
  is blocked, so no layout transform is needed around the LRN.

``beta == 0.75`` (the usual value) divides by ``sqrt(d) * sqrt(sqrt(d))``, which vectorises,
instead of calling ``pow`` per lane; other values keep ``pow``.
"""

from __future__ import annotations

from ember import te, tir

__all__ = ["lrn_channels", "lrn_nchwc", "schedule_lrn_nchwc", "lrn_window_bounds"]


def lrn_window_bounds(size: int) -> tuple[int, int]:
    """Channels (before, after) the current one in ONNX's LRN window of ``size`` channels."""
    if size < 1:
        raise ValueError(f"LRN: size must be positive, got {size}")
    return (size - 1) // 2, size // 2


def _normalise(x, total, size: int, alpha: float, beta: float, bias: float, dtype: str):
    d = tir.const(bias, dtype) + tir.const(alpha / size, dtype) * total
    if beta == 0.75:
        root = tir.sqrt(d)
        return x / (root * tir.sqrt(root))
    if beta == 0.5:
        return x / tir.sqrt(d)
    if beta == 1.0:
        return x / d
    return x / tir.power(d, tir.const(beta, dtype))


def lrn_channels(data, size: int, alpha: float = 1e-4, beta: float = 0.75, bias: float = 1.0) -> te.Tensor:
    """LRN over axis 1 of ``data`` (rank >= 2, static channel count), ONNX's window."""
    if len(data.shape) < 2:
        raise ValueError(f"lrn_channels: data must have a channel axis (rank >= 2), got rank {len(data.shape)}")
    channels = int(data.shape[1])
    before, _ = lrn_window_bounds(size)
    dtype = data.dtype
    zero = tir.const(0.0, dtype)

    def out(*i):
        total = None
        for k in range(size):
            c = i[1] + (k - before)
            idx = list(i)
            idx[1] = tir.max(tir.min(c, channels - 1), 0)
            v = data(*idx)
            tap = tir.Select(tir.And(c >= 0, c < channels), v * v, zero)
            total = tap if total is None else total + tap
        return _normalise(data(*i), total, size, alpha, beta, bias, dtype)

    return te.compute(data.shape, out, name="lrn", tag="injective")


def lrn_nchwc(data, size: int, alpha: float = 1e-4, beta: float = 0.75, bias: float = 1.0) -> te.Tensor:
    """LRN over the channels of blocked ``data`` ``(N, C/b, H, W, b)``; ``size - 1 <= 2 * b``."""
    if len(data.shape) != 5:
        raise ValueError(f"lrn_nchwc: data must be (N, C/b, H, W, b), got rank {len(data.shape)}")
    n, blocks, h, w, b = (int(d) for d in data.shape)
    before, after = lrn_window_bounds(size)
    if before > b or after > b:
        raise ValueError(f"lrn_nchwc: a window of {size} channels reaches past the next block of {b}")
    dtype = data.dtype
    zero = tir.const(0.0, dtype)

    def square(nn, hh, ww, j, lane):  # block j holds channel block j - 1; blocks 0 and last are zeros
        v = data[nn, tir.max(tir.min(j - 1, blocks - 1), 0), hh, ww, lane]
        return tir.Select(tir.And(j >= 1, j <= blocks), v * v, zero)

    squares = te.compute((n, h, w, blocks + 2, b), square, name="lrn_square")

    def out(nn, cb, hh, ww, lane):
        first = b + cb * b + lane - before  # position of the window's first channel in ``squares``
        total = None
        for k in range(size):
            tap = squares[nn, hh, ww, (first + k) // b, (first + k) % b]
            total = tap if total is None else total + tap
        return _normalise(data[nn, cb, hh, ww, lane], total, size, alpha, beta, bias, dtype)

    return te.compute(data.shape, out, name="lrn")


def schedule_lrn_nchwc(func) -> tir.PrimFunc:
    """The schedule of ``create_prim_func([data, lrn_nchwc(data, ...)])``: pixels in parallel,
    the squares of one pixel in a local buffer, each block's lanes vectorised; marked
    ``tir.is_scheduled``."""
    sch = tir.Schedule(func)
    block = sch.get_block("lrn")
    n, cb, h, w, lane = sch.get_loops(block)
    sch.reorder(n, h, w, cb, lane)
    pixel = sch.fuse(n, h, w)
    sch.parallel(pixel)
    sch.vectorize(lane)
    squares = sch.get_block("lrn_square")
    sch.compute_at(squares, pixel)
    sch.set_scope(squares, 0, "local")
    sch.vectorize(sch.get_loops(squares)[-1])  # whole blocks: aligned vector loads of ``data``
    return sch.mod["main"].with_attr("tir.is_scheduled", True)
