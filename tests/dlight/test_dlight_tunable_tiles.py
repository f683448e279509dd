"""dlight's register-tiled convolution rules applied ``tunable``: their tile choices (channel
vectors FR, pixels XR; for Conv2DNCHWc also the window's unrolling and the order of the
block's channels and the window) become sampled perfect tiles whose default decisions are the rule's
own heuristic, so the schedule is exactly the untuned one; a ragged tile stays a constant
split; a changed decision replays to a program that still computes the convolution."""

import numpy as np
import pytest

import ember
from ember import te, topi
from ember.dlight import cpu
from ember.dlight.cpu.common import lanes_for
from ember.ir import structural_equal
from ember.relax.transform.pack_conv_weights import conv2d_nchw_packed
from ember.target import Target
from ember.tir.schedule import Schedule

TARGET = Target("llvm")
B = lanes_for(TARGET, 32)


def conv_nchwc(c, f, hw, k, depthwise=False):
    x = te.placeholder((1, c // B, hw, hw, B), name="X")
    w = te.placeholder((f // B, 1 if depthwise else c, k, k, B), name="W")
    y = topi.nn.relu(topi.nn.conv2d_nchwc(x, w, (1, 1), (k // 2,) * 4, (1, 1), "float32", depthwise))
    return te.create_prim_func([x, w, y])


def conv_nchw(c, f, hw, k):
    x, w = te.placeholder((1, c, hw, hw), name="X"), te.placeholder((f, c, k, k), name="W")
    return te.create_prim_func([x, w, topi.nn.relu(topi.nn.conv2d_nchw(x, w, 1, k // 2, 1))])


def conv_packed(c, f, hw, k, stride=1, pad=None):
    x, w = te.placeholder((1, c, hw, hw), name="X"), te.placeholder((f // B, c, k, k, B), name="W")
    return te.create_prim_func([x, w, conv2d_nchw_packed(x, w, (stride, stride), (k // 2 if pad is None else pad,) * 4,
                                                           (1, 1), "float32")])


CASES = {
    "nchwc_3x3": (cpu.Conv2DNCHWc, lambda: conv_nchwc(2 * B, 4 * B, 14, 3)),
    "nchwc_1x1": (cpu.Conv2DNCHWc, lambda: conv_nchwc(4 * B, 2 * B, 7, 1)),
    "depthwise_nchwc": (cpu.DepthwiseConv2DNCHWc, lambda: conv_nchwc(2 * B, 2 * B, 28, 3, depthwise=True)),
    "nchw": (cpu.Conv2D, lambda: conv_nchw(16, 32, 14, 3)),
    "packed": (cpu.Conv2DPacked, lambda: conv_packed(8, 2 * B, 14, 3)),
}


def _tile_decisions(sch):
    return [(i, d) for i, d in sch.trace.decisions.items() if i.kind.method == "sample_perfect_tile"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_default_decisions_give_the_untuned_schedule(case):
    rule, make = CASES[case]
    func = make()
    plain, tunable = rule().apply(func, TARGET, False), rule().apply(func, TARGET, True)
    assert not _tile_decisions(plain)
    decisions = _tile_decisions(tunable)
    assert decisions, "the tunable schedule samples its tiles"
    assert structural_equal(plain.mod, tunable.mod)


def test_ragged_pixel_tile_stays_a_constant_split():
    # a first layer (3 input channels, short reduction) takes 4 pixels of an 11-pixel row, the
    # last tile guarded: no perfect tile says that, so the pixel split is not a decision
    sch = cpu.Conv2DPacked().apply(conv_packed(3, 4 * B, 23, 3, stride=2, pad=0), TARGET, True)
    extents = [list(d) for _, d in _tile_decisions(sch)]
    assert len(extents) == 1 and extents[0][-1] == B  # the channel split only


def _conv_numpy(x, w, pad):
    """NCHW convolution (stride 1) with ReLU, in numpy."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    f, _, k, _ = w.shape
    h = x.shape[2]
    out = np.zeros((x.shape[0], f, h, h), "float32")
    for i in range(k):
        for j in range(k):
            out += np.einsum("nchw,fc->nfhw", xp[:, :, i:i + h, j:j + h], w[:, :, i, j])
    return np.maximum(out, 0)


def _unblock(a):  # (n, C, h, w, c) -> (n, C*c, h, w)
    n, cb, h, w, c = a.shape
    return a.transpose(0, 1, 4, 2, 3).reshape(n, cb * c, h, w)


@pytest.mark.parametrize("case", ["nchwc_3x3", "nchw"])
def test_changed_tile_decision_still_computes_the_conv(case):
    from ember.dlight.cpu.normalize import normalize_for_rules

    rule, make = CASES[case]
    func = make()
    sch = rule().apply(func, TARGET, True)
    inst, old = _tile_decisions(sch)[1]  # the pixel tile (after the channel one)
    extent, limit = old[0] * old[1], inst.attrs[1]
    new = next([extent // d, d] for d in range(limit, 1, -1) if extent % d == 0 and d != old[1])
    replayed = Schedule(normalize_for_rules(func))
    sch.trace.with_decision(inst, new).apply_to_schedule(replayed)
    assert not structural_equal(replayed.mod, sch.mod)
    rng = np.random.default_rng(0)
    shapes = [[int(d) for d in func.buffer_map[p].shape] for p in func.params]
    x, w = (rng.standard_normal(s).astype("float32") for s in shapes[:-1])
    out = np.zeros(shapes[-1], "float32")
    ember.build(replayed.mod, target="llvm")(x, w, out)
    if case == "nchw":
        np.testing.assert_allclose(out, _conv_numpy(x, w, 1), rtol=1e-4, atol=1e-4)
    else:  # weight (F, C, kh, kw, f) -> (F*f, C, kh, kw)
        w_oihw = w.transpose(0, 4, 1, 2, 3).reshape(-1, *w.shape[1:4])
        np.testing.assert_allclose(_unblock(out), _conv_numpy(_unblock(x), w_oihw, 1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("decisions", [
    {2: [3, 1], 3: [3, 1]},  # the window rolled
    {2: [3, 1], 4: [2, B // 2]},  # the window's rows rolled, half the block's channels outside
    {4: [1, B]},  # every channel of the block inside the window
])
def test_blocked_conv_reduction_order_and_unroll_decisions(decisions):
    from ember.dlight.cpu.normalize import normalize_for_rules

    func = conv_nchwc(2 * B, 2 * B, 7, 3)
    sch = cpu.Conv2DNCHWc().apply(func, TARGET, True)
    tiles = _tile_decisions(sch)
    # the rule's own: the window unrolled, the channels outside it (7 pixels: short rows)
    assert [list(d) for _, d in tiles[2:]] == [[1, 3], [1, 3], [B, 1]]
    trace = sch.trace
    for k, d in decisions.items():
        trace = trace.with_decision(tiles[k][0], d)
    replayed = Schedule(normalize_for_rules(func))
    trace.apply_to_schedule(replayed)
    assert not structural_equal(replayed.mod, sch.mod)
    rng = np.random.default_rng(1)
    shapes = [[int(d) for d in func.buffer_map[p].shape] for p in func.params]
    x, w = (rng.standard_normal(s).astype("float32") for s in shapes[:-1])
    out = np.zeros(shapes[-1], "float32")
    ember.build(replayed.mod, target="llvm")(x, w, out)
    w_oihw = w.transpose(0, 4, 1, 2, 3).reshape(-1, *w.shape[1:4])
    np.testing.assert_allclose(_unblock(out), _conv_numpy(_unblock(x), w_oihw, 1), rtol=1e-4, atol=1e-4)
