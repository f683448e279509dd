"""ConvertLayout: conv2d rewritten to NHWC / NCHW{b}c, the layout carried through
elementwise ops, pools, concat and the next conv (no transform in between), transforms back
only where needed; numerically the same program (reference evaluator and relax.build).
Also the sub-indexed layouts themselves: ``tir.data_layout`` and conv2d / pool struct info."""

import numpy as np
import pytest

import ember
from ember import relax
from ember.ir import Op
from ember.relax.transform import ConvertLayout
from ember.tir.data_layout import layout, layout_index_map

RNG = np.random.default_rng(0)
BLOCKED = {"relax.nn.conv2d": ["NCHW8c", "OIHW8o"]}
NHWC = {"relax.nn.conv2d": ["NHWC", "OHWI"]}


def _const(*shape):
    return relax.const(RNG.standard_normal(shape).astype("float32"))


def _network(c=16, hw=10):
    """conv → (C,1,1)-constant multiply, add → relu → max_pool → conv ∥ depthwise conv → concat →
    residual add → adaptive_avg_pool → reshape (which needs NCHW)."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, c, hw, hw), "float32"))
    nn, op = relax.op.nn, relax.op
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(nn.conv2d(x, _const(16, c, 3, 3), padding=1))
            y = bb.emit(op.multiply(y, _const(16, 1, 1)))
            y = bb.emit(op.add(y, _const(1, 16, 1, 1)))
            y = bb.emit(nn.relu(y))
            y = bb.emit(nn.max_pool2d(y, 3, 1, 1))
            a = bb.emit(nn.conv2d(y, _const(8, 16, 1, 1)))
            b = bb.emit(nn.conv2d(y, _const(16, 1, 3, 3), padding=1, groups=16))
            z = bb.emit(op.concat([a, b], axis=1))
            z = bb.emit(op.add(z, relax.const(np.float32(0.5))))
            z = bb.emit(nn.adaptive_avg_pool2d(z, 1))
            z = bb.emit(op.reshape(z, (1, 24)))
            out = bb.emit_output(z)
        bb.emit_func_output(out)
    return bb.get()


def _run(mod, x):
    ex = relax.build(relax.get_pipeline("zero")(mod), "llvm")
    return relax.VirtualMachine(ex, ember.cpu())["main"](ember.nd.array(x)).numpy()


def _ops(mod):
    return [b.value.op.name for blk in mod["main"].body.blocks for b in blk.bindings
            if isinstance(b.value, relax.Call) and isinstance(b.value.op, Op)]


def test_layout_parsing_and_index_maps():
    lay = layout("NCHW16c")
    assert lay.primal == "NCHW" and lay.factor_of("C") == 16 and lay.index_of("c") == 4
    assert lay.shape({"N": 1, "C": 64, "H": 5, "W": 7}) == [1, 4, 5, 7, 16]
    assert lay.logical([1, 4, 5, 7, 16]) == {"N": 1, "C": 64, "H": 5, "W": 7}
    fwd, back = layout_index_map("NCHW", "NCHW16c"), layout_index_map("NCHW16c", "NCHW")
    idx = [ember.tir.const(v, "int32") for v in (0, 37, 2, 3)]
    got = [ember.arith.Analyzer().simplify(e).value for e in fwd.map_indices(idx)]
    assert got == [0, 2, 2, 3, 5]
    got = [ember.arith.Analyzer().simplify(e).value for e in back.map_indices([ember.tir.const(v, "int32") for v in got])]
    assert got == [0, 37, 2, 3]
    for bad in ("NCHWc", "NCHW16C", "NCHW8x", "NNCHW", "NC-HW"):
        with pytest.raises(ValueError, match="layout"):
            layout(bad)


def test_sub_indexed_struct_info():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2, 4, 28, 28, 4), "float32"))
    with bb.function("main", [x]):
        y = bb.emit(relax.op.nn.conv2d(x, _const(2, 16, 3, 3, 4), data_layout="NCHW4c", kernel_layout="OIHW4o"))
        p = bb.emit(relax.op.nn.max_pool2d(y, 2, 2, layout="NCHW4c"))
        bb.emit_func_output(p)
    assert [int(d) for d in y.struct_info.shape.values] == [2, 2, 26, 26, 4]
    assert [int(d) for d in p.struct_info.shape.values] == [2, 2, 13, 13, 4]
    # every dim int64 (a sub-axis factor too), or fused kernels mix i32 and i64 indices
    assert {str(d.dtype) for d in (*y.struct_info.shape.values, *p.struct_info.shape.values)} == {"int64"}
    with pytest.raises(Exception, match="data has 16 channels"):
        relax.BlockBuilder().normalize(relax.op.nn.conv2d(x, _const(2, 8, 3, 3, 4), data_layout="NCHW4c",
                                                          kernel_layout="OIHW4o"))


@pytest.mark.parametrize("desired", [BLOCKED, NHWC], ids=["NCHW8c", "NHWC"])
def test_network_converted_and_equal(desired):
    mod = _network()
    out = ConvertLayout(desired)(mod)
    relax.analysis.check_well_formed(out)
    ops = _ops(out)
    assert ops.count("relax.nn.conv2d") == 3
    convs = [b.value for blk in out["main"].body.blocks for b in blk.bindings
             if isinstance(b.value, relax.Call) and b.value.op.name == "relax.nn.conv2d"]
    assert all(c.attrs.data_layout == desired["relax.nn.conv2d"][0] for c in convs)
    # only two transforms: the input, and back before the reshape (constants are rewritten at once)
    moves = ops.count("relax.layout_transform") + ops.count("relax.permute_dims")
    assert moves == 2, ops
    x = RNG.standard_normal((1, 16, 10, 10)).astype("float32")
    want = np.asarray(relax.reference.run(mod, x))
    np.testing.assert_allclose(_run(out, x), want, rtol=1e-4, atol=1e-4)


def test_parameter_weight_transformed_in_graph():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 16, 6, 6), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((8, 16, 3, 3), "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.nn.relu(bb.emit(relax.op.nn.conv2d(x, w, padding=1))))
        bb.emit_func_output(out)
    mod = bb.get()
    out = ConvertLayout(BLOCKED)(mod)
    assert _ops(out) == ["relax.layout_transform", "relax.layout_transform", "relax.nn.conv2d", "relax.nn.relu",
                         "relax.layout_transform"]
    xv = RNG.standard_normal((1, 16, 6, 6)).astype("float32")
    wv = RNG.standard_normal((8, 16, 3, 3)).astype("float32")
    ex = relax.build(relax.get_pipeline("zero")(out), "llvm")
    got = relax.VirtualMachine(ex, ember.cpu())["main"](ember.nd.array(xv), ember.nd.array(wv)).numpy()
    np.testing.assert_allclose(got, np.asarray(relax.reference.run(mod, xv, wv)), rtol=1e-4, atol=1e-4)


def test_default_pipeline_blocks_convolutions():
    mod = _network()
    lowered = relax.get_default_pipeline(ember.target.Target("llvm"))(mod)
    names = [gv.name_hint for gv in lowered.functions]
    assert any("NCHWc" in n for n in names), names
    with ember.transform.PassContext(config={"relax.transform.blocked_conv_layout": False}):
        plain = relax.get_default_pipeline(ember.target.Target("llvm"))(mod)
    assert not any("NCHWc" in gv.name_hint for gv in plain.functions)


def test_channels_not_divisible_left_alone():
    mod = _network(c=12)
    out = ConvertLayout({"relax.nn.conv2d": ["NCHW16c", "OIHW16o"]})(mod)
    convs = [b.value for blk in out["main"].body.blocks for b in blk.bindings
             if isinstance(b.value, relax.Call) and b.value.op.name == "relax.nn.conv2d"]
    assert convs[0].attrs.data_layout == "NCHW"  # 12 input channels do not split into 16s
    assert convs[1].attrs.data_layout == "NCHW"  # 8 output channels do not either
    x = RNG.standard_normal((1, 12, 10, 10)).astype("float32")
    np.testing.assert_allclose(_run(out, x), np.asarray(relax.reference.run(mod, x)), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("src,dst", [("NCHW16c", "NCHW"), ("NCHW", "NCHW8c"), ("NCHW8c", "NHWC")])
def test_int32_layout_transform_builds(src, dst):
    """TVM's ConvertLayout writes int32 index maps over int64 shapes; the kernel must build."""
    x_np = RNG.standard_normal((1, 32, 3, 5)).astype("float32")
    from ember.tir.data_layout import relayout_array

    x_in = relayout_array(x_np, "NCHW", src)
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(x_in.shape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.layout_transform(x, layout_index_map(src, dst, "int32")))
        bb.emit_func_output(out)
    np.testing.assert_array_equal(_run(bb.get(), x_in), relayout_array(x_np, "NCHW", dst))


def test_blocked_conv_layout_picks_blocks_per_convolution():
    """The CPU pipeline's BlockedConvLayout: RGB input read as NCHW1c, 24 channels in blocks of
    half a register, 32 in whole ones, no transform between convolutions; same result."""
    from ember.relax.transform.blocked_conv_layout import BlockedConvLayout

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 3, 12, 12), "float32"))
    nn, op = relax.op.nn, relax.op
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(nn.relu(bb.emit(nn.conv2d(x, _const(32, 3, 3, 3), strides=2, padding=1))))
            y = bb.emit(nn.conv2d(y, _const(24, 32, 1, 1)))
            y = bb.emit(op.add(y, bb.emit(op.reshape(_const(24), (24, 1, 1)))))
            y = bb.emit(nn.conv2d(y, _const(24, 1, 3, 3), padding=1, groups=24))
            y = bb.emit(nn.conv2d(y, _const(32, 24, 1, 1)))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    mod = bb.get()
    target = ember.target.Target("llvm -mcpu=skylake-avx512")
    out = BlockedConvLayout(target)(mod)
    convs = [b.value.attrs for blk in out["main"].body.blocks for b in blk.bindings
             if isinstance(b.value, relax.Call) and b.value.op.name == "relax.nn.conv2d"]
    assert [(a.data_layout, a.kernel_layout, a.out_layout) for a in convs] == [
        ("NCHW1c", "OIHW16o", "NCHW16c"), ("NCHW16c", "OIHW8o", "NCHW8c"), ("NCHW8c", "OIHW8o", "NCHW8c"),
        ("NCHW8c", "OIHW16o", "NCHW16c")]
    ops = _ops(out)
    assert ops.count("relax.layout_transform") == 2, ops  # the input, and the output back to NCHW
    xv = RNG.standard_normal((1, 3, 12, 12)).astype("float32")
    ex = relax.build(relax.get_pipeline("zero")(out), "llvm")
    got = relax.VirtualMachine(ex, ember.cpu())["main"](ember.nd.array(xv)).numpy()
    np.testing.assert_allclose(got, np.asarray(relax.reference.run(mod, xv)), rtol=1e-4, atol=1e-4)
