"""ConvertLayout through operators whose attributes name axes (reductions, softmax,
strided_slice, permute_dims, layer_norm): the axes are renumbered for the converted layout and
the program computes the same values (reference evaluator)."""

import numpy as np
import pytest

import ember
from ember import relax
from ember.relax import reference
from ember.relax.transform import ConvertLayout

RNG = np.random.default_rng(3)
LAYOUTS = {"NHWC": {"relax.nn.conv2d": ["NHWC", "OHWI"]},
           "NCHW4c": {"relax.nn.conv2d": ["NCHW4c", "OIHW4o"]}}


def _conv_then(tail):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2, 8, 6, 6), "float32"))
    w = relax.const(RNG.standard_normal((8, 8, 3, 3)).astype("float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, w))
            out = bb.emit_output(tail(bb, y))
        bb.emit_func_output(out)
    return bb.get()


op = relax.op
TAILS = {
    "sum_hw": lambda bb, y: bb.emit(op.sum(y, axis=[2, 3])),
    "mean_keepdims": lambda bb, y: bb.emit(op.mean(y, axis=[-2, -1], keepdims=True)),
    "max_over_channels": lambda bb, y: bb.emit(op.max(y, axis=[1])),
    "softmax": lambda bb, y: bb.emit(op.nn.softmax(y, axis=3)),
    "strided_slice": lambda bb, y: bb.emit(op.strided_slice(y, axes=[2, 3], begin=[0, 1], end=[4, 4], strides=[2, 1])),
    "permute_dims": lambda bb, y: bb.emit(op.permute_dims(y, [3, 2, 1, 0])),
    "layer_norm": lambda bb, y: bb.emit(op.nn.layer_norm(
        y, relax.const(np.ones((4, 4), "float32")), relax.const(np.zeros((4, 4), "float32")), axes=[2, 3])),
}


@pytest.mark.parametrize("tail", sorted(TAILS))
def test_same_values_after_conversion_to_nhwc(tail):
    mod = _conv_then(TAILS[tail])
    out = ConvertLayout(LAYOUTS["NHWC"])(mod)
    relax.analysis.check_well_formed(out)
    x = RNG.standard_normal((2, 8, 6, 6)).astype("float32")
    np.testing.assert_allclose(np.asarray(reference.run(out, x)), np.asarray(reference.run(mod, x)), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("tail", ["max_over_channels", "mean_keepdims", "strided_slice", "sum_hw"])
def test_same_values_after_conversion_to_blocked(tail):
    mod = _conv_then(TAILS[tail])
    out = ConvertLayout(LAYOUTS["NCHW4c"])(mod)
    relax.analysis.check_well_formed(out)
    x = RNG.standard_normal((2, 8, 6, 6)).astype("float32")
    ex = relax.build(relax.get_pipeline("zero")(out), "llvm")
    got = relax.VirtualMachine(ex, ember.cpu())["main"](ember.nd.array(x)).numpy()
    np.testing.assert_allclose(got, np.asarray(reference.run(mod, x)), rtol=1e-4, atol=1e-4)


def _bindings(mod):
    return [b for blk in mod["main"].body.blocks for b in blk.bindings]


def _calls(mod, name):
    return [b.value for b in _bindings(mod) if getattr(getattr(b.value, "op", None), "name", "") == name]


def test_reduction_axes_follow_the_layout():
    out = ConvertLayout(LAYOUTS["NHWC"])(_conv_then(TAILS["sum_hw"]))
    (red,) = _calls(out, "relax.sum")
    assert tuple(red.attrs.axis) == (1, 2)  # H, W of NHWC; the result (N, C) needs no transform back
    assert not _calls(out, "relax.layout_transform") and len(_calls(out, "relax.permute_dims")) == 1  # x only (w is a constant)


def test_split_channel_reduction_takes_its_sub_axis():
    out = ConvertLayout(LAYOUTS["NCHW4c"])(_conv_then(TAILS["max_over_channels"]))
    (red,) = _calls(out, "relax.max")
    assert tuple(red.attrs.axis) == (1, 4)


def test_softmax_over_a_split_axis_goes_back_first():
    out = ConvertLayout(LAYOUTS["NCHW4c"])(_conv_then(lambda bb, y: bb.emit(op.nn.softmax(y, axis=1))))
    (sm,) = _calls(out, "relax.nn.softmax")
    assert sm.attrs.axis == 1 and sm.args[0].struct_info.ndim == 4
