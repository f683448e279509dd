"""PackConvWeights: conv2d with a constant OIHW weight becomes one ``conv2d_nchw_packed``
kernel over a weight packed at compile time (IR), the zero pipeline fuses the epilogue into
it, relax.build + VM match PyTorch, and convolutions it must not touch are left alone."""

import logging

import numpy as np
import pytest

import ember
from ember import relax
from ember.ir import Op
from ember.relax.transform import PackConvWeights
from ember.relax.transform.pack_conv_weights import pack_oihw

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)


def _conv_module(c, f, hw, k, stride, pad, groups=1, const_weight=True):
    w = RNG.standard_normal((f, c // groups, k, k)).astype("float32")
    s = RNG.standard_normal((1, f, 1, 1)).astype("float32")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, c, hw, hw), "float32"))
    params = [x]
    if not const_weight:
        wv = relax.Var("w", relax.TensorStructInfo(w.shape, "float32"))
        params.append(wv)
    with bb.function("main", params):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, relax.const(w) if const_weight else wv, strides=stride, padding=pad,
                                           groups=groups))
            y = bb.emit(relax.op.nn.relu(relax.op.multiply(y, relax.const(s))))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    return bb.get(), w, s


def _ops(mod):
    return [b.value.op.name for blk in mod["main"].body.blocks for b in blk.bindings
            if isinstance(b.value, relax.Call) and isinstance(b.value.op, Op)]


def test_pack_oihw_layout():
    w = RNG.standard_normal((32, 3, 2, 2)).astype("float32")
    p = pack_oihw(w, 16)
    assert p.shape == (2, 3, 2, 2, 16)
    assert p[1, 2, 0, 1, 5] == w[21, 2, 0, 1]
    with pytest.raises(ValueError, match="block=16"):
        pack_oihw(w[:24], 16)


def test_conv_rewritten_to_packed_kernel():
    mod, _, _ = _conv_module(8, 32, 10, 3, 1, 1)
    out = PackConvWeights()(mod)
    assert "relax.nn.conv2d" not in _ops(out)
    kernels = [gv.name_hint for gv, f in out.functions.items() if isinstance(f, ember.tir.PrimFunc)]
    assert kernels == ["conv2d"]
    relax.analysis.check_well_formed(out)
    fused = relax.get_pipeline("zero")(mod)
    names = [gv.name_hint for gv, f in fused.functions.items() if isinstance(f, ember.tir.PrimFunc)]
    assert len(names) == 1 and names[0].startswith("fused_conv2d")  # epilogue fused into the kernel


@pytest.mark.parametrize("c,f,hw,k,stride,pad", [(8, 32, 10, 3, 1, 1), (3, 16, 15, 7, 2, 3), (16, 24, 9, 1, 2, 0)])
def test_packed_conv_build_matches_torch(c, f, hw, k, stride, pad):
    mod, w, s = _conv_module(c, f, hw, k, stride, pad)
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, ember.cpu())
    x = RNG.standard_normal((1, c, hw, hw)).astype("float32")
    got = vm["main"](ember.nd.array(x)).numpy()
    ref = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), stride=stride,
                                                padding=pad) * torch.from_numpy(s)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("why,kwargs", [
    ("groups=4", {"groups": 4}), ("not a constant", {"const_weight": False}), ("multiple of 8", {"f": 12}), ("at least 32", {"f": 20}),
])
def test_left_alone(caplog, why, kwargs):
    args = {"c": 8, "f": 16, "hw": 6, "k": 3, "stride": 1, "pad": 1, **kwargs}
    mod, _, _ = _conv_module(**args)
    with caplog.at_level(logging.DEBUG, logger="ember.relax.pack_conv_weights"):
        out = PackConvWeights()(mod)
    assert out is mod
    assert why in caplog.text


def test_depthwise_packed_build_matches_torch():
    mod, w, s = _conv_module(16, 16, 9, 3, 2, 1, groups=16)
    assert "relax.nn.conv2d" not in _ops(PackConvWeights()(mod))
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), ember.cpu())
    x = RNG.standard_normal((1, 16, 9, 9)).astype("float32")
    ref = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), stride=2, padding=1,
                                                groups=16) * torch.from_numpy(s)).numpy()
    np.testing.assert_allclose(vm["main"](ember.nd.array(x)).numpy(), ref, rtol=1e-4, atol=1e-4)


def test_odd_channel_count_padded_then_sliced():
    mod, w, s = _conv_module(8, 36, 7, 1, 1, 0)
    out = PackConvWeights()(mod)
    assert "relax.strided_slice" in _ops(out)
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), ember.cpu())
    x = RNG.standard_normal((1, 8, 7, 7)).astype("float32")
    ref = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w)) * torch.from_numpy(s)).numpy()
    np.testing.assert_allclose(vm["main"](ember.nd.array(x)).numpy(), ref, rtol=1e-4, atol=1e-4)
