"""WinogradConv2D: blocked 3×3 stride-1 convolutions as Winograd transforms + batched GEMM,
checked against a numpy convolution (tolerance 1e-4 relative to the output's largest value:
F(4,3) rounds more than a direct sum in float32), and the convolutions it leaves alone."""

import numpy as np
import pytest

import ember as tvm
from ember import relax
from ember.relax.transform import winograd_conv2d as wc
from ember.relax.transform.blocked_conv_layout import BlockedConvLayout
from ember.topi.nn.winograd import transform_weight, winograd_matrices

TOL = 1e-4


def _conv_ref(x, w, pad, stride=1, dilation=1, groups=1):
    n, c, h, wd = x.shape
    k, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - dilation * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * pad - dilation * (kw - 1) - 1) // stride + 1
    out = np.zeros((n, k, oh, ow), np.float64)
    per = k // groups
    for f in range(k):
        g = f // per
        for ky in range(kh):
            for kx in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, ky * dilation:ky * dilation + stride * oh:stride,
                           kx * dilation:kx * dilation + stride * ow:stride]
                out[:, f] += np.einsum("nchw,c->nhw", patch, w[f, :, ky, kx])
    return out


def _model(c, k, h, w, pad, epilogue, rng, stride=1, dilation=1, groups=1, weight_param=False):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, c, h, w), "float32"))
    wt = (rng.standard_normal((k, c // groups, 3, 3)) * 0.2).astype("float32")
    bias = rng.standard_normal((1, k, 1, 1)).astype("float32")
    params = [x]
    if weight_param:
        wv = relax.Var("w", relax.TensorStructInfo(wt.shape, "float32"))
        params.append(wv)
    with bb.function("main", params):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, params[1] if weight_param else relax.const(wt), strides=stride,
                                           padding=pad, dilation=dilation, groups=groups))
            if epilogue:
                y = bb.emit(relax.op.nn.relu(relax.op.add(y, relax.const(bias))))
                if c == k and pad == 1:
                    y = bb.emit(relax.op.add(y, x))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    return bb.get(), wt, bias


def _compile(mod, m, on=True):
    old = wc.default_choose_tile
    wc.default_choose_tile = lambda *shape: m
    try:
        with tvm.transform.PassContext(opt_level=3, config={"relax.transform.winograd_conv2d": on}):
            lowered = relax.get_default_pipeline("llvm")(mod)
            ex = relax.build(lowered, "llvm")
    finally:
        wc.default_choose_tile = old
    return lowered, relax.VirtualMachine(ex, tvm.cpu())


def _kernels(mod):
    return [gv.name_hint for gv in mod.functions]


@pytest.mark.parametrize("m", [2, 4])
def test_matrices_correlate_1d(m):
    at, bt, g = winograd_matrices(m)
    rng = np.random.default_rng(m)
    d, taps = rng.standard_normal(m + 2), rng.standard_normal(3)
    expected = np.array([d[i:i + 3] @ taps for i in range(m)])
    np.testing.assert_allclose(at @ ((g @ taps) * (bt @ d)), expected, rtol=1e-12, atol=1e-12)


def test_transform_weight_shape():
    w = np.ones((32, 16, 3, 3), "float32")
    assert transform_weight(w, 4).shape == (6, 6, 16, 32)


@pytest.mark.parametrize("m, c, k, h, w, pad, epilogue", [
    (2, 16, 16, 8, 8, 1, True),    # whole tiles, bias + relu + residual fused
    (2, 32, 16, 7, 9, 1, True),    # ragged tiles, no residual (c != k)
    (4, 16, 32, 11, 10, 0, True),  # no padding, ragged
    (4, 32, 32, 13, 13, 1, True),  # ragged with residual
    (4, 8, 16, 6, 6, 1, False),    # a block of 8 input channels, bare conv
])
def test_winograd_matches_numpy(m, c, k, h, w, pad, epilogue):
    rng = np.random.default_rng(c + k + h)
    mod, wt, bias = _model(c, k, h, w, pad, epilogue, rng)
    lowered, vm = _compile(mod, m)
    names = _kernels(lowered)
    assert "winograd_input" in names and any("winograd_output" in n for n in names), names
    if epilogue:
        assert any(n.startswith("fused_winograd_output_add_relu") for n in names), names
    x = rng.random((1, c, h, w)).astype("float32")
    got = vm["main"](tvm.nd.array(x)).numpy()
    ref = _conv_ref(x.astype(np.float64), wt.astype(np.float64), pad)
    if epilogue:
        ref = np.maximum(ref + bias, 0)
        if c == k and pad == 1:
            ref = ref + x
    assert np.abs(got - ref).max() <= TOL * np.abs(ref).max()


@pytest.mark.parametrize("kwargs", [
    dict(stride=2), dict(dilation=2), dict(groups=2), dict(weight_param=True),
])
def test_other_convs_left_alone(kwargs):
    rng = np.random.default_rng(0)
    mod, _, _ = _model(32, 32, 8, 8, 1, False, rng, **kwargs)
    with tvm.transform.PassContext(config={"relax.transform.winograd_conv2d": True}):
        blocked = BlockedConvLayout("llvm")(relax.transform.Normalize()(mod))
        after = wc.WinogradConv2D(choose=lambda *s: 4)(blocked)
    assert "winograd_input" not in _kernels(after)
    assert "relax.nn.conv2d" in after.script() or "R.nn.conv2d" in after.script()


def test_one_by_one_left_alone():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 16, 8, 8), "float32"))
    with bb.function("main", [x]):
        out = bb.emit(relax.op.nn.conv2d(x, relax.const(np.ones((16, 16, 1, 1), "float32"))))
        bb.emit_func_output(out)
    blocked = BlockedConvLayout("llvm")(relax.transform.Normalize()(bb.get()))
    after = wc.WinogradConv2D(choose=lambda *s: 4, force=True)(blocked)
    assert "winograd_input" not in _kernels(after)


def test_switch_off(monkeypatch):
    rng = np.random.default_rng(1)
    mod, _, _ = _model(16, 16, 8, 8, 1, False, rng)
    lowered, _ = _compile(mod, 4, on=False)
    assert not any("winograd" in n for n in _kernels(lowered))
    monkeypatch.setenv("EMBER_WINOGRAD", "0")
    assert not wc.winograd_enabled()
    monkeypatch.setenv("EMBER_WINOGRAD", "1")
    assert wc.winograd_enabled()
    monkeypatch.delenv("EMBER_WINOGRAD")
    assert wc.winograd_enabled()  # on by default
    with tvm.transform.PassContext(config={"relax.transform.winograd_conv2d": False}):
        assert not wc.winograd_enabled()


def test_choice_zero_keeps_direct():
    rng = np.random.default_rng(2)
    mod, _, _ = _model(16, 16, 8, 8, 1, False, rng)
    blocked = BlockedConvLayout("llvm")(relax.transform.Normalize()(mod))
    after = wc.WinogradConv2D(choose=lambda *s: 0, force=True)(blocked)
    assert "winograd_input" not in _kernels(after)


@pytest.mark.parametrize("m", [2, 4])
def test_batch_and_uneven_padding(m):
    """Two images (tiles numbered across the batch) and padding (top, left, bottom, right)
    = (1, 0, 2, 1)."""
    rng = np.random.default_rng(m)
    n, c, k, h, w = 2, 16, 16, 9, 7
    wt = (rng.standard_normal((k, c, 3, 3)) * 0.2).astype("float32")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((n, c, h, w), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(relax.op.nn.conv2d(x, relax.const(wt), padding=(1, 0, 2, 1))))
        bb.emit_func_output(out)
    lowered, vm = _compile(bb.get(), m)
    assert "winograd_input" in _kernels(lowered)
    data = rng.random((n, c, h, w)).astype("float32")
    got = vm["main"](tvm.nd.array(data)).numpy()
    padded = np.pad(data, ((0, 0), (0, 0), (1, 2), (0, 1))).astype(np.float64)
    ref = _conv_ref(padded, wt.astype(np.float64), 0)
    assert got.shape == ref.shape
    assert np.abs(got - ref).max() <= TOL * np.abs(ref).max()
