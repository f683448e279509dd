"""FuseOps around out-elementwise-fusable ops (conv, pooling), as TVM's graph partitioner:
nothing is fused into a conv as a prologue, and a conv's group holds only elementwise and
broadcast ops after it — a window op such as LRN (pad + channel slices) stays its own kernel.
Each case checks the groups, the "not fused" log line and the values against the unfused module."""

import logging

import numpy as np

from ember import relax
from ember.relax import op as R
from ember.relax import reference
from ember.relax.struct_info import TensorStructInfo
from ember.relax.transform import FuseOps, FuseTIR
from relax_fusion_builders import dataflow_function, legalize_and_annotate

RNG = np.random.default_rng(3)


def _groups(mod):
    return sorted(gv.name_hint for gv, f in mod.functions.items()
                  if isinstance(f, relax.Function) and f.attrs.get("Primitive"))


def _same_values(lowered, fused, *args):
    want = reference.run(lowered, *args)
    got = reference.run(FuseTIR()(fused), *args)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def preactivation_conv():
    """DenseNet's pre-activation: concat → scale/shift (folded BN) → relu → 1×1 conv → relu."""
    a = relax.Var("a", TensorStructInfo([1, 4, 6, 6], "float32"))
    b = relax.Var("b", TensorStructInfo([1, 4, 6, 6], "float32"))
    scale = relax.Var("scale", TensorStructInfo([1, 8, 1, 1], "float32"))
    w = relax.Var("w", TensorStructInfo([5, 8, 1, 1], "float32"))

    def body(bb, a, b, scale, w):
        cat = bb.emit(R.concat([a, b], axis=1))
        act = bb.emit(R.nn.relu(bb.emit(R.multiply(cat, scale))))
        return bb.emit(R.nn.relu(bb.emit(R.nn.conv2d(act, w))))

    return dataflow_function([a, b, scale, w], body)


def conv_relu_lrn():
    """Inception's conv → relu → LRN: the LRN's channel window (pad + slices) reads the relu
    output, and its last op joins that output again (x / denominator)."""
    x = relax.Var("x", TensorStructInfo([1, 3, 6, 6], "float32"))
    w = relax.Var("w", TensorStructInfo([6, 3, 3, 3], "float32"))

    def body(bb, x, w):
        y = bb.emit(R.nn.relu(bb.emit(R.nn.conv2d(x, w, padding=1))))
        padded = bb.emit(R.nn.pad(bb.emit(R.multiply(y, y)), [0, 0, 1, 1, 0, 0, 0, 0]))
        total = bb.emit(R.strided_slice(padded, [1], [0], [6]))
        for i in (1, 2):
            total = bb.emit(R.add(total, bb.emit(R.strided_slice(padded, [1], [i], [i + 6]))))
        return bb.emit(R.divide(y, bb.emit(R.add(total, relax.const(np.float32(1.0))))))

    return dataflow_function([x, w], body)


def test_elementwise_prologue_is_not_fused_into_a_conv(caplog):
    lowered = legalize_and_annotate(preactivation_conv())
    with caplog.at_level(logging.DEBUG, logger="ember.relax.fuse"):
        fused = FuseOps()(lowered)
    assert _groups(fused) == ["fused_concatenate_multiply_relu", "fused_conv2d_relu1"]
    assert "not fused: relu → conv2d: Injective producer of an out-elementwise-fusable op" in caplog.text
    args = [RNG.standard_normal(s).astype("float32") for s in ((1, 4, 6, 6), (1, 4, 6, 6), (1, 8, 1, 1), (5, 8, 1, 1))]
    _same_values(lowered, fused, *args)


def test_window_op_after_a_conv_stays_out_of_its_group(caplog):
    lowered = legalize_and_annotate(conv_relu_lrn())
    with caplog.at_level(logging.DEBUG, logger="ember.relax.fuse"):
        fused = FuseOps()(lowered)
    groups = _groups(fused)
    assert "fused_conv2d_relu" in groups
    conv_group = fused[fused.get_global_var("fused_conv2d_relu")]
    assert len(conv_group.body.blocks[0].bindings) == 2  # conv and relu only
    lrn = [g for g in groups if g != "fused_conv2d_relu"]
    assert len(lrn) == 1 and "pad" in lrn[0] and lrn[0].endswith("divide")
    assert "in an out-elementwise-fusable group" in caplog.text
    args = [RNG.standard_normal(s).astype("float32") for s in ((1, 3, 6, 6), (6, 3, 3, 3))]
    _same_values(lowered, fused, *args)


def test_pooling_keeps_its_elementwise_epilogue_only():
    x = relax.Var("x", TensorStructInfo([1, 4, 6, 6], "float32"))

    def body(bb, x):
        p = bb.emit(R.nn.relu(bb.emit(R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2]))))
        return bb.emit(R.add(p, bb.emit(R.strided_slice(bb.emit(R.nn.pad(p, [0, 0, 0, 0, 1, 0, 1, 0])),
                                                         [2, 3], [0, 0], [3, 3]))))

    lowered = legalize_and_annotate(dataflow_function([x], body))
    fused = FuseOps()(lowered)
    pool_groups = [g for g in _groups(fused) if "max_pool2d" in g]
    assert pool_groups == ["fused_max_pool2d_relu"]
    _same_values(lowered, fused, RNG.standard_normal((1, 4, 6, 6)).astype("float32"))
