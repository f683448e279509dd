"""dlight.cpu.Conv2DNCHWc / DepthwiseConv2DNCHWc: convolutions on channel-blocked data
(NCHW{b}c in and out, one vector register per block) keep the program's result for random
shapes, strides and epilogues (bias, residual add, ReLU); results against PyTorch."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import te, topi
from ember.dlight import cpu
from ember.dlight.cpu.common import lanes_for
from ember.target import Target

torch = pytest.importorskip("torch")
TARGET = Target("llvm")
B = lanes_for(TARGET, 32)  # the channel block the rules want: one register


def _blocked(x, b):
    n, c, h, w = x.shape
    return np.ascontiguousarray(x.reshape(n, c // b, b, h, w).transpose(0, 1, 3, 4, 2))


def _weight_blocked(w, b):
    o, i, kh, kw = w.shape
    return np.ascontiguousarray(w.reshape(o // b, b, i, kh, kw).transpose(0, 2, 3, 4, 1))


def _shape(i64, *dims):
    """int64 dims are what Relax's legalisation makes (the padding is then read in place)."""
    return tuple(ember.tir.const(d, "int64") for d in dims) if i64 else dims


def _run(c, f, hw, k, stride, residual, depthwise, seed, in_block=B, out_block=B, i64=False):
    pad = k // 2
    x_t = te.placeholder(_shape(i64, 1, c // in_block, hw, hw, in_block), name="X")
    w_t = te.placeholder(_shape(i64, f // out_block, 1 if depthwise else c, k, k, out_block), name="W")
    b_t = te.placeholder(_shape(i64, 1, f // out_block, 1, 1, out_block), name="Bias")
    conv = topi.nn.conv2d_nchwc(x_t, w_t, (stride, stride), (pad,) * 4, (1, 1), "float32", depthwise)
    y_t = topi.add(conv, b_t)
    ins = [x_t, w_t, b_t]
    if residual:
        r_t = te.placeholder(tuple(int(d) for d in y_t.shape), name="R")
        y_t = topi.add(y_t, r_t)
        ins.append(r_t)
    y_t = topi.nn.relu(y_t)
    rule = cpu.DepthwiseConv2DNCHWc() if depthwise else cpu.Conv2DNCHWc()
    sch = rule.apply(te.create_prim_func([*ins, y_t]), TARGET, False)
    assert sch is not None
    mod = ember.build(sch.mod, target="llvm")
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, c, hw, hw)).astype("float32")
    w = rng.standard_normal((f, 1 if depthwise else c, k, k)).astype("float32")
    b = rng.standard_normal((1, f, 1, 1)).astype("float32")
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), stride=stride, padding=pad,
                                     groups=c if depthwise else 1).numpy() + b
    args = [_blocked(x, in_block), _weight_blocked(w, out_block), _blocked(b, out_block)]
    if residual:
        r = rng.standard_normal(ref.shape).astype("float32")
        ref = ref + r
        args.append(_blocked(r, out_block))
    ref = _blocked(np.maximum(ref, 0), out_block)
    out = np.zeros(ref.shape, "float32")
    mod(*args, out)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("c,f,hw,k,stride,residual", [
    (2 * B, 4 * B, 14, 3, 1, True), (B, 2 * B, 15, 1, 2, False), (2 * B, B, 7, 3, 2, False), (B, 8 * B, 9, 1, 1, True),
])
def test_conv_matches_torch(c, f, hw, k, stride, residual):
    _run(c, f, hw, k, stride, residual, False, seed=c + hw)


@pytest.mark.parametrize("i64", [False, True])
@pytest.mark.parametrize("c,hw,k,stride", [(2 * B, 14, 3, 1), (B, 15, 3, 2), (3 * B, 7, 5, 2), (B, 2, 3, 2)])
def test_depthwise_matches_torch(c, hw, k, stride, i64):
    _run(c, c, hw, k, stride, True, True, seed=c + hw, i64=i64)


@pytest.mark.parametrize("i64", [False, True])
def test_depthwise_reads_padding_in_place(i64):
    """With int64 indices the padding block is inlined (a border test per tap, no padded copy
    per call); int32 padding indices under int64 taps keep the copy (the test would mix them)."""
    x_t = te.placeholder(_shape(i64, 1, 2, 10, 10, B), name="X")
    w_t = te.placeholder(_shape(i64, 2, 1, 3, 3, B), name="W")
    y_t = topi.nn.conv2d_nchwc(x_t, w_t, (2, 2), (1, 1, 1, 1), (1, 1), "float32", True)
    sch = cpu.DepthwiseConv2DNCHWc().apply(te.create_prim_func([x_t, w_t, y_t]), TARGET, False)
    assert ("pad_temp" in sch.mod.script()) != i64


@settings(max_examples=6, deadline=None)
@given(cb=st.integers(1, 3), fb=st.integers(1, 5), hw=st.integers(2, 17), k=st.sampled_from([1, 3]),
       stride=st.integers(1, 2), residual=st.booleans(), depthwise=st.booleans(), i64=st.booleans())
def test_random_shapes(cb, fb, hw, k, stride, residual, depthwise, i64):
    f = cb * B if depthwise else fb * B
    _run(cb * B, f, hw, k, stride, residual, depthwise, seed=hw * k + fb, i64=i64)


@pytest.mark.parametrize("in_block,out_block", [(B // 2, B), (B, B // 2), (B // 2, B // 2)])
def test_mixed_and_half_register_blocks(in_block, out_block):
    """NCHW8c data into a NCHW16c output (a block change costs no transform), and 8-channel
    output blocks on 16-lane registers (MobileNetV2's 24 and 40 channels)."""
    c = 2 * B if max(in_block, out_block) == B else 3 * B // 2
    _run(c, c, 9, 3, 1, True, False, seed=5, in_block=in_block, out_block=out_block)
    if in_block == out_block:
        _run(c, c, 9, 3, 2, False, True, seed=6, in_block=in_block, out_block=out_block, i64=True)


def test_declines_blocks_smaller_than_half_a_register():
    x_t = te.placeholder((1, 2, 8, 8, B // 4), name="X")
    w_t = te.placeholder((2, B // 2, 3, 3, B // 4), name="W")
    y_t = topi.nn.conv2d_nchwc(x_t, w_t, (1, 1), (1, 1, 1, 1), (1, 1), "float32")
    assert cpu.Conv2DNCHWc().apply(te.create_prim_func([x_t, w_t, y_t]), TARGET, False) is None


def test_window_tiles_leave_broadcasts_uncounted():
    """3x3 layers with a long reduction: the widest tile whose accumulators and weight vectors
    fit 32 registers (2x14 at 56 and 28 pixels, 64-128 channels); the pixel-counting tile (4x4)
    otherwise, as for 1x1 layers."""
    from ember.dlight.cpu.conv2d_packed import _tile

    assert _tile(64, 56, 16, 32) == (4, 4)
    assert _tile(64, 56, 16, 32, broadcast_operands=True) == (2, 14)
    assert _tile(128, 28, 16, 32, broadcast_operands=True) == (2, 14)
    assert _tile(512, 7, 16, 32, broadcast_operands=True) == (2, 7)


@pytest.mark.parametrize("wide,unroll,pixels", [(True, True, 7), (True, False, 14), (False, False, 7)])
def test_wide_window_tiles_match_torch(wide, unroll, pixels, monkeypatch):
    monkeypatch.setattr(cpu.Conv2DNCHWc, "wide_window_tiles", wide)
    monkeypatch.setattr(cpu.Conv2DNCHWc, "unroll_window", unroll)
    monkeypatch.setattr(cpu.Conv2DNCHWc, "window_tile_pixels", pixels)
    _run(2 * B, 4 * B, 28, 3, 1, True, False, seed=3)
    _run(2 * B, 2 * B, 28, 3, 2, False, False, seed=4, i64=True)


def _reduction_order(k, outside, hw=14, **attrs):
    """The names of the non-unit reduction loops around a k x k conv's update, outermost first
    (``outside``: ``Conv2DNCHWc.channels_outside_window``, a bound on the tile's pixels;
    ``attrs``: other rule attributes, by default the window rolled and 2x14 tiles allowed)."""
    x_t = te.placeholder((1, 2, hw, hw, B), name="X")
    w_t = te.placeholder((2, 2 * B, k, k, B), name="W")
    y_t = topi.nn.conv2d_nchwc(x_t, w_t, (1, 1), (k // 2,) * 4, (1, 1), "float32")
    rule = cpu.Conv2DNCHWc()
    for name, value in {"unroll_window": False, "window_tile_pixels": 14, **attrs}.items():
        setattr(rule, name, value)
    rule.channels_outside_window = outside
    sch = rule.apply(te.create_prim_func([x_t, w_t, y_t]), TARGET, False)
    loops = [sch.get(lp) for lp in sch.get_loops(sch.get_block("conv2d_NCHWc_update"))]
    return [str(lp.loop_var) for lp in loops if int(lp.extent) > 1 and str(lp.loop_var).startswith("r")]


def test_channels_outside_window_order():
    """With the channels outside the window, a 3x3 conv reads each block's 3*3*B weight chunk in
    order (rco, rci, ry, rx); inside, the channel is innermost and strides 9*B floats.  A 1x1
    conv has no window: its channels stay innermost either way.  With 2x14 tiles allowed and
    the window rolled, the channels go outside only for short output rows (7 pixels)."""
    outside, inside = ["rco", "rci_0", "ry_0", "rx_0"], ["rco", "ry_0", "rx_0", "rci_1"]
    assert _reduction_order(3, 99) == outside
    assert _reduction_order(3, 0) == inside
    assert _reduction_order(1, 99) == _reduction_order(1, 0) == ["rco", "rci_1"]
    default = cpu.Conv2DNCHWc.channels_outside_window
    assert _reduction_order(3, default, hw=7) == outside
    assert _reduction_order(3, default, hw=14) == inside


def test_default_window_tiles_unroll_the_window():
    """The defaults: window tiles of at most 7 pixels (so the channels go outside the window)
    with the window unrolled, innermost over the block's channels; 1x1 convs unchanged."""
    default = cpu.Conv2DNCHWc.channels_outside_window
    attrs = {"unroll_window": cpu.Conv2DNCHWc.unroll_window, "window_tile_pixels": cpu.Conv2DNCHWc.window_tile_pixels}
    for hw in (7, 14, 28):
        assert _reduction_order(3, default, hw=hw, **attrs) == ["rco", "rci_0", "ry_1", "rx_1"]
    assert _reduction_order(1, default, **attrs) == ["rco", "rci_1"]


def test_window_tile_pixels_caps_the_tile():
    from ember.dlight.cpu.conv2d_packed import _tile

    assert _tile(64, 56, 16, 32, broadcast_operands=True, max_pixels=7) == (4, 4)
    assert _tile(256, 14, 16, 32, broadcast_operands=True, max_pixels=7) == (2, 7)
    assert _tile(512, 7, 16, 32, broadcast_operands=True, max_pixels=7) == (2, 7)


@pytest.mark.parametrize("hw,pixels", [(13, 13), (27, 9), (28, 7), (55, 5)])
def test_rows_without_a_divisor_near_the_cap_keep_the_wide_tile(hw, pixels):
    """A row whose divisors under ``window_tile_pixels`` are all small (SqueezeNet's 13 and 27
    pixels: 1 and 3) takes the widest tile instead; rows with a divisor near the cap keep it."""
    x_t = te.placeholder((1, 2, hw, hw, B), name="X")
    w_t = te.placeholder((2, 2 * B, 3, 3, B), name="W")
    y_t = topi.nn.conv2d_nchwc(x_t, w_t, (1, 1), (1,) * 4, (1, 1), "float32")
    sch = cpu.Conv2DNCHWc().apply(te.create_prim_func([x_t, w_t, y_t]), TARGET, False)
    loops = {str(sch.get(lp).loop_var): int(sch.get(lp).extent) for lp in sch.get_loops(sch.get_block("conv2d_NCHWc_update"))}
    assert loops["xx_1"] == pixels


@pytest.mark.parametrize("outside", [99, 0])
def test_channels_outside_window_matches_torch(outside, monkeypatch):
    monkeypatch.setattr(cpu.Conv2DNCHWc, "channels_outside_window", outside)
    _run(2 * B, 4 * B, 14, 3, 1, True, False, seed=7)
    _run(3 * B, 2 * B, 11, 5, 2, False, False, seed=8, i64=True)
    _run(B, 2 * B, 9, 1, 1, False, False, seed=9)


@pytest.mark.parametrize("rows", [1000.0, 0.0])
def test_rows_outside_channels_matches_torch(rows, monkeypatch):
    """Rows outermost in the parallel loop (and in the padding copy's), or channels: same results."""
    monkeypatch.setattr(cpu.Conv2DNCHWc, "rows_outside_channels", rows)
    monkeypatch.setattr(cpu.DepthwiseConv2DNCHWc, "rows_outside_channels", rows)
    _run(2 * B, 4 * B, 14, 3, 1, True, False, seed=10)
    _run(2 * B, 2 * B, 11, 3, 2, False, False, seed=11, i64=True)
    _run(B, 2 * B, 9, 1, 1, False, False, seed=12)
    _run(2 * B, 2 * B, 14, 3, 1, True, True, seed=13)
    _run(3 * B, 3 * B, 9, 3, 2, False, True, seed=14, i64=True)


def test_rows_outside_channels_order():
    x_t = te.placeholder((1, 2, 14, 14, B), name="X")
    w_t = te.placeholder((4, 2 * B, 3, 3, B), name="W")
    y_t = topi.nn.conv2d_nchwc(x_t, w_t, (1, 1), (1, 1, 1, 1), (1, 1), "float32")
    rule = cpu.Conv2DNCHWc()
    rule.rows_outside_channels = 1000.0
    sch = rule.apply(te.create_prim_func([x_t, w_t, y_t]), TARGET, False)
    outer = str(sch.get(sch.get_loops(sch.get_block("conv2d_NCHWc_update"))[0]).loop_var)
    assert outer.index("yy") < outer.index("ff_0")


@pytest.mark.parametrize("depthwise", [False, True])
def test_rows_outside_channels_by_default_where_the_input_outweighs_the_weights(depthwise):
    """By default (1.0) rows go outermost when the input's pixels are at least the weights per
    input channel: a 14x14 input with 2 output blocks of 3x3 weights (2*16*9 > 196 for a
    conv; 16*9 <= 196 for a depthwise conv) and a 28x28 one."""
    assert cpu.Conv2DNCHWc.rows_outside_channels == cpu.DepthwiseConv2DNCHWc.rows_outside_channels == 1.0
    for hw, rows_first in ((14, depthwise or B < 16), (28, True)):
        x_t = te.placeholder((1, 2, hw, hw, B), name="X")
        w_t = te.placeholder((2, 1 if depthwise else 2 * B, 3, 3, B), name="W")
        y_t = topi.nn.conv2d_nchwc(x_t, w_t, (1, 1), (1, 1, 1, 1), (1, 1), "float32", depthwise)
        rule = cpu.DepthwiseConv2DNCHWc() if depthwise else cpu.Conv2DNCHWc()
        sch = rule.apply(te.create_prim_func([x_t, w_t, y_t]), TARGET, False)
        block = next(b for b in ("conv2d_NCHWc_update", "depthwise_conv2d_NCHWc_update", "conv2d_NCHWc")
                     if _has_block(sch, b))
        outer = str(sch.get(sch.get_loops(sch.get_block(block))[0]).loop_var)
        assert (outer.index("yy") < outer.index("ff")) == rows_first, (hw, outer)


def _has_block(sch, name):
    try:
        sch.get_block(name)
    except Exception:
        return False
    return True
