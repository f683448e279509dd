"""FoldBatchnormToConv2D: conv2d → batch_norm[0] with constants becomes conv2d on a scaled
weight plus one add (IR), numerically the same as the decomposed batch norm (reference
evaluator and relax.build), and pairs it must not fold are left alone."""

import numpy as np
import pytest

import ember
from ember import relax
from ember.ir import Op
from ember.relax.transform import DecomposeOpsForInference, FoldBatchnormToConv2D

RNG = np.random.default_rng(0)


def _stats(f):
    gamma, beta, mean = (RNG.standard_normal(f).astype("float32") for _ in range(3))
    var = RNG.uniform(0.5, 2.0, f).astype("float32")
    return gamma, beta, mean, var


def _conv_bn(c=3, f=8, hw=9, layout="NCHW", kernel_layout="OIHW", const_weight=True, extra_use=False,
             axis=None, center=True, scale=True):
    w = RNG.standard_normal((f, c, 3, 3)).astype("float32")
    if kernel_layout == "OHWI":
        w = w.transpose(0, 2, 3, 1).copy()
    shape = (1, c, hw, hw) if layout == "NCHW" else (1, hw, hw, c)
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(shape, "float32"))
    params = [x]
    if not const_weight:
        params.append(relax.Var("w", relax.TensorStructInfo(w.shape, "float32")))
    weight = relax.const(w) if const_weight else params[1]
    c_axis = layout.index("C") if axis is None else axis
    with bb.function("main", params):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, weight, padding=1, data_layout=layout, kernel_layout=kernel_layout))
            bn = bb.emit(relax.op.nn.batch_norm(y, *(relax.const(s) for s in _stats(f)), axis=c_axis,
                                                epsilon=1e-3, center=center, scale=scale, training=False))
            out = bb.emit(relax.TupleGetItem(bn, 0))
            if extra_use:
                out = bb.emit(relax.op.add(out, y))
            out = bb.emit_output(out)
        bb.emit_func_output(out)
    return bb.get(), shape


def _ops(mod):
    return [b.value.op.name for blk in mod["main"].body.blocks for b in blk.bindings
            if isinstance(b.value, relax.Call) and isinstance(b.value.op, Op)]


def _reference(mod, x):
    return relax.reference.run(DecomposeOpsForInference()(mod), x)


@pytest.mark.parametrize("layout,kernel_layout", [("NCHW", "OIHW"), ("NHWC", "OHWI")])
@pytest.mark.parametrize("center,scale", [(True, True), (False, True), (True, False)])
def test_folded_matches_batch_norm(layout, kernel_layout, center, scale):
    mod, shape = _conv_bn(layout=layout, kernel_layout=kernel_layout, center=center, scale=scale)
    folded = FoldBatchnormToConv2D()(mod)
    assert _ops(folded) == ["relax.nn.conv2d", "relax.add"]
    relax.analysis.check_well_formed(folded)
    x = RNG.standard_normal(shape).astype("float32")
    np.testing.assert_allclose(np.asarray(relax.reference.run(folded, x)), np.asarray(_reference(mod, x)),
                               rtol=1e-4, atol=1e-4)


def test_folded_builds_and_runs():
    mod, shape = _conv_bn(c=4, f=16, hw=12)
    x = RNG.standard_normal(shape).astype("float32")
    want = np.asarray(_reference(mod, x))
    ex = relax.build(relax.get_pipeline("zero")(FoldBatchnormToConv2D()(mod)), "llvm")
    got = relax.VirtualMachine(ex, ember.cpu())["main"](ember.nd.array(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kwargs", [dict(const_weight=False), dict(extra_use=True), dict(axis=3, hw=8)])
def test_left_alone(kwargs):
    mod, _ = _conv_bn(**kwargs)
    assert FoldBatchnormToConv2D()(mod) is mod
