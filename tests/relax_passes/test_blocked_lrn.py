"""ConvertLayout's LRN rule: an LRN kernel (call_tir of a PrimFunc marked ``ember.lrn``) whose
input is channel-blocked runs as ``lrn_nchwc`` in that layout, no transform either side; an
LRN on NCHW data, or an unmarked call_tir, is left alone. Numerically the same program."""

import numpy as np

import ember as tvm
from ember import relax, topi
from ember.relax.transform import ConvertLayout

RNG = np.random.default_rng(3)
BLOCKED = {"relax.nn.conv2d": ["NCHW8c", "OIHW8o"]}


def _const(*shape):
    return relax.const(RNG.standard_normal(shape).astype("float32"))


def _network(marked=True, conv_first=True, c=16):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 8, 9, 9), "float32"))
    attrs = {"ember.lrn": [5.0, 1e-2, 0.75, 1.0]} if marked else None
    with bb.function("main", [x]):
        with bb.dataflow():
            h = x
            if conv_first:
                h = bb.emit(relax.op.nn.conv2d(h, _const(c, 8, 3, 3), padding=1))
                h = bb.emit(relax.op.nn.relu(h))
            h = bb.emit_te(topi.nn.lrn_channels, h, 5, 1e-2, 0.75, 1.0, primfunc_name_hint="lrn",
                           primfunc_attrs=attrs)
            out = bb.emit_output(relax.op.nn.conv2d(h, _const(8, h.struct_info.shape[1].value, 1, 1)))
        bb.emit_func_output(out)
    return bb.get()


def _calls(mod):
    """How often main calls the blocked LRN, the plain LRN (``lrn``), a layout transform."""
    text = mod["main"].script()
    counts = {name: text.count(name) for name in ("lrn_nchwc", "layout_transform")}
    counts["lrn"] = text.count('GlobalVar("lrn")') + text.count("cls.lrn,")
    return counts


def _run(mod, x):
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    return vm["main"](tvm.nd.array(x)).numpy()


def test_lrn_on_blocked_data_stays_blocked():
    mod = _network()
    new = ConvertLayout(BLOCKED)(mod)
    calls = _calls(new)
    assert calls["lrn_nchwc"] == 1 and calls["lrn"] == 0
    # into the first conv (data), out of the last conv: none around the LRN
    assert calls["layout_transform"] == 2
    assert new["lrn_nchwc"].attrs["tir.is_scheduled"]
    x = RNG.standard_normal((1, 8, 9, 9)).astype("float32")
    np.testing.assert_allclose(_run(new, x), _run(mod, x), rtol=1e-5, atol=1e-4)


def test_lrn_on_nchw_data_is_left_alone():
    new = ConvertLayout(BLOCKED)(_network(conv_first=False))
    calls = _calls(new)
    assert calls["lrn_nchwc"] == 0 and calls["lrn"] == 1


def test_unmarked_call_tir_gets_its_input_back_in_nchw():
    mod = _network(marked=False)
    new = ConvertLayout(BLOCKED)(mod)
    calls = _calls(new)
    assert calls["lrn_nchwc"] == 0 and calls["lrn"] == 1
    assert calls["layout_transform"] == 4  # back to NCHW before it, blocked again after it
    x = RNG.standard_normal((1, 8, 9, 9)).astype("float32")
    np.testing.assert_allclose(_run(new, x), _run(mod, x), rtol=1e-5, atol=1e-4)


def test_blocked_conv_layout_pipeline_uses_the_blocked_lrn():
    from ember.relax.transform.blocked_conv_layout import BlockedConvLayout

    with tvm.target.Target("llvm"):
        new = BlockedConvLayout()(_network(c=32))
    assert _calls(new)["lrn_nchwc"] == 1


def test_blocked_lrn_stays_its_own_kernel_before_elementwise_ops():
    # FuseOps must not fuse the scheduled kernel with a relu after it (FuseTIR would write an
    # unscheduled function no dlight rule takes)
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 8, 9, 9), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            c = bb.emit(relax.op.nn.conv2d(x, _const(16, 8, 3, 3), padding=1))
            h = bb.emit_te(topi.nn.lrn_channels, c, 5, 1e-2, 0.75, 1.0, primfunc_name_hint="lrn",
                           primfunc_attrs={"ember.lrn": [5.0, 1e-2, 0.75, 1.0]})
            h = bb.emit(relax.op.add(relax.op.nn.relu(h), c))
            out = bb.emit_output(relax.op.nn.conv2d(h, _const(8, 16, 1, 1)))
        bb.emit_func_output(out)
    mod = bb.get()
    target = tvm.target.Target("llvm")
    with target:
        lowered = relax.get_default_pipeline(target)(ConvertLayout(BLOCKED)(mod))
    names = [gv.name_hint for gv in lowered.functions]
    assert "lrn_nchwc" in names and not any("lrn" in n and n != "lrn_nchwc" for n in names)
    x_np = RNG.standard_normal((1, 8, 9, 9)).astype("float32")
    np.testing.assert_allclose(_run(ConvertLayout(BLOCKED)(mod), x_np), _run(mod, x_np), rtol=1e-5, atol=1e-4)
