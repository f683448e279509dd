"""FuseOps and FuseTIR: what is grouped (IR), why a fusion is declined (log), and that
fused and unfused modules compute the same values (reference interpreter and the VM)."""

import logging

import numpy as np
import pytest

import ember
from ember import relax, tir
from ember.relax import op as R
from ember.relax import reference
from ember.relax.struct_info import TensorStructInfo
from ember.relax.transform import FuseOps, FuseTIR
from relax_fusion_builders import dataflow_function, legalize_and_annotate

RNG = np.random.default_rng(0)


def conv_bias_relu():
    x = relax.Var("x", TensorStructInfo([1, 3, 8, 8], "float32"))
    w = relax.Var("w", TensorStructInfo([4, 3, 3, 3], "float32"))
    b = relax.Var("b", TensorStructInfo([1, 4, 1, 1], "float32"))
    return dataflow_function([x, w, b], lambda bb, x, w, b: bb.emit(R.nn.relu(bb.emit(R.add(bb.emit(
        R.nn.conv2d(x, w, padding=1)), b)))))


def mlp(n=4):
    x = relax.Var("x", TensorStructInfo([n, 8], "float32"))
    w1 = relax.Var("w1", TensorStructInfo([8, 16], "float32"))
    b1 = relax.Var("b1", TensorStructInfo([16], "float32"))
    w2 = relax.Var("w2", TensorStructInfo([16, 4], "float32"))

    def body(bb, x, w1, b1, w2):
        h = bb.emit(R.nn.relu(bb.emit(R.add(bb.emit(R.matmul(x, w1)), b1))))
        return bb.emit(R.nn.softmax(bb.emit(R.matmul(h, w2))))

    return dataflow_function([x, w1, b1, w2], body)


def _primitive_funcs(mod):
    return {gv.name_hint: f for gv, f in mod.functions.items()
            if isinstance(f, relax.Function) and f.attrs.get("Primitive")}


def _prim_funcs(mod):
    return {gv.name_hint: f for gv, f in mod.functions.items() if isinstance(f, tir.PrimFunc)}


def _block_names(prim):
    names = []
    tir.post_order_visit(prim.body, lambda n: names.append(n.name_hint) if isinstance(n, tir.Block) else None)
    return [n for n in names if n != "root"]


def test_fuse_ops_groups_conv_bias_relu_into_one_primitive():
    fused = FuseOps()(legalize_and_annotate(conv_bias_relu()))
    prims = _primitive_funcs(fused)
    assert list(prims) == ["fused_conv2d_add_relu"]
    (func,) = prims.values()
    assert func.attrs["Primitive"] == 1  # Integer(1), as TVM writes it
    assert func.script().count("R.call_tir(") == 3
    main = fused["main"].script()
    assert "R.call_tir(" not in main and "fused_conv2d_add_relu" in main
    relax.analysis.check_well_formed(fused)


def test_fuse_tir_makes_one_primfunc_with_unique_blocks():
    mod = FuseTIR()(FuseOps()(legalize_and_annotate(conv_bias_relu())))
    assert not _primitive_funcs(mod)
    prims = _prim_funcs(mod)
    assert list(prims) == ["fused_conv2d_add_relu"]  # the unfused kernels are gone
    main = mod.script()
    assert main.count("R.call_tir(") == 1
    names = _block_names(prims["fused_conv2d_add_relu"])
    assert names == ["pad_temp", "conv2d_nchw", "T_add", "T_relu"]
    assert len(set(names)) == len(names)
    allocs = prims["fused_conv2d_add_relu"].body.block.alloc_buffers
    assert len(allocs) == 3  # the conv result, the biased value and the conv's own pad
    relax.analysis.check_well_formed(mod)


def test_same_kernel_twice_gets_renamed_blocks():
    x = relax.Var("x", TensorStructInfo([4], "float32"))
    mod = dataflow_function([x], lambda bb, x: bb.emit(R.exp(bb.emit(R.exp(x)))))
    mod = FuseTIR()(FuseOps()(legalize_and_annotate(mod)))
    (prim,) = _prim_funcs(mod).values()
    assert _block_names(prim) == ["T_exp", "T_exp_1"]
    a = RNG.random(4).astype("float32")
    np.testing.assert_allclose(reference.run(mod, a), np.exp(np.exp(a)), rtol=1e-6)


def test_mlp_groups_and_declined_fusions_are_logged(caplog):
    with caplog.at_level(logging.DEBUG, logger="ember.relax.fuse"):
        fused = FuseOps()(legalize_and_annotate(mlp()))
    assert sorted(_primitive_funcs(fused)) == ["fused_matmul_add_relu"]
    assert "not fused: matmul1 → softmax: OutEWiseFusable feeds OutEWiseFusable" in caplog.text


def test_reduction_feeds_reduction_is_declined(caplog):
    x = relax.Var("x", TensorStructInfo([3, 4], "float32"))
    mod = dataflow_function([x], lambda bb, x: bb.emit(R.sum(bb.emit(R.sum(x, axis=[1])), axis=[0])))
    with caplog.at_level(logging.DEBUG, logger="ember.relax.fuse"):
        assert FuseOps()(legalize_and_annotate(mod)) is not None
    assert "not fused: sum → sum1: reduction feeds reduction" in caplog.text


def test_injective_producers_fuse_into_reduction():
    x = relax.Var("x", TensorStructInfo([3, 4], "float32"))
    mod = dataflow_function([x], lambda bb, x: bb.emit(R.sum(bb.emit(R.exp(bb.emit(R.permute_dims(x))), ), axis=[1])))
    assert list(_primitive_funcs(FuseOps()(legalize_and_annotate(mod)))) == ["fused_transpose_tir_exp_sum"]


def test_diamond_closes_into_one_group(caplog):
    x = relax.Var("x", TensorStructInfo([4], "float32"))

    def body(bb, x):
        e = bb.emit(R.exp(x))
        return bb.emit(R.add(bb.emit(R.negative(e)), bb.emit(R.sqrt(e))))

    with caplog.at_level(logging.DEBUG, logger="ember.relax.fuse"):
        fused = FuseOps()(legalize_and_annotate(dataflow_function([x], body)))
    assert "tir_exp → tir_negative: lv has 1 other uses" in caplog.text  # until add joins both paths
    assert sorted(_primitive_funcs(fused)) == ["fused_tir_exp_tir_negative_tir_sqrt_add"]
    a = RNG.random(4).astype("float32")
    out = reference.run(FuseTIR()(fused), a)
    np.testing.assert_allclose(out, -np.exp(a) + np.sqrt(np.exp(a)), rtol=1e-6)


def test_value_used_outside_the_group_is_not_fused():
    x = relax.Var("x", TensorStructInfo([4], "float32"))

    def body(bb, x):
        e = bb.emit(R.exp(x))
        return bb.emit(R.add(bb.emit(R.sum(bb.emit(R.negative(e)), axis=[0])), e))

    fused = FuseOps()(legalize_and_annotate(dataflow_function([x], body)))
    assert sorted(_primitive_funcs(fused)) == ["fused_tir_negative_sum"]


def test_fuse_opt_level_zero_fuses_nothing():
    mod = legalize_and_annotate(conv_bias_relu())
    assert FuseOps(fuse_opt_level=0)(mod) is mod


def test_constants_become_parameters():
    x = relax.Var("x", TensorStructInfo([2, 3], "float32"))
    c = relax.const(RNG.random((2, 3)).astype("float32"))
    mod = dataflow_function([x], lambda bb, x: bb.emit(R.nn.relu(bb.emit(R.multiply(x, c)))))
    fused = FuseTIR()(FuseOps()(legalize_and_annotate(mod)))
    assert fused.script().count("R.call_tir(") == 1
    a = RNG.random((2, 3)).astype("float32")
    np.testing.assert_allclose(reference.run(fused, a), np.maximum(a * c.numpy(), 0), rtol=1e-6)


@pytest.mark.parametrize("make", [conv_bias_relu, mlp], ids=["conv_bias_relu", "mlp"])
def test_fused_and_unfused_agree_through_the_vm(make):
    mod = make()
    inputs = [RNG.random([int(d) for d in p.struct_info.shape.values]).astype("float32") - 0.3
              for p in mod["main"].params]
    unfused = legalize_and_annotate(mod)
    fused = FuseTIR()(FuseOps()(unfused))
    want = reference.run(mod, *inputs)
    for m in (unfused, fused):
        vm = relax.VirtualMachine(relax.build(m, "llvm"), ember.cpu())
        got = vm["main"](*[ember.nd.array(a) for a in inputs]).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_symbolic_shapes_survive_fusion():
    n = tir.Var("n", "int64")
    mod = FuseTIR()(FuseOps()(legalize_and_annotate(mlp(n))))
    relax.analysis.check_well_formed(mod)
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), ember.cpu())
    for rows in (1, 5):
        inputs = [RNG.random(s).astype("float32") for s in [(rows, 8), (8, 16), (16,), (16, 4)]]
        got = vm["main"](*[ember.nd.array(a) for a in inputs]).numpy()
        np.testing.assert_allclose(got, reference.run(mlp(rows), *inputs), rtol=1e-5)


def test_zero_pipeline_fuses():
    mod = relax.get_pipeline("zero")(conv_bias_relu())
    assert mod.script().count("R.call_tir(") == 1
    assert list(_prim_funcs(mod)) == ["fused_conv2d_add_relu"]


@pytest.mark.parametrize("make", [conv_bias_relu, mlp], ids=["conv_bias_relu", "mlp"])
def test_fused_modules_round_trip_through_tvmscript(make):
    from ember.ir import structural_equal
    from ember.script import ir as I  # noqa: E741
    from ember.script import relax as RS
    from ember.script import tir as T
    from ember.script.parser import from_source

    for mod in (FuseOps()(legalize_and_annotate(make())), FuseTIR()(FuseOps()(legalize_and_annotate(make())))):
        assert structural_equal(from_source(mod.script(), {"R": RS, "T": T, "I": I}), mod)


def test_group_needing_an_outside_symbol_is_not_fused(caplog):
    n, k = tir.Var("n", "int64"), tir.Var("k", "int64")
    x = relax.Var("x", TensorStructInfo([n], "float32"))
    y = relax.Var("y", TensorStructInfo([k], "float32"))
    lowered = legalize_and_annotate(dataflow_function([x], lambda bb, x: bb.emit(R.negative(bb.emit(R.exp(x))))))
    exp_gv, neg_gv = lowered.get_global_var("tir_exp"), lowered.get_global_var("tir_negative")
    kernels = lowered.with_functions({gv: f for gv, f in lowered.functions.items() if gv.name_hint != "main"})
    bb = relax.BlockBuilder(kernels)  # a new "main" (the builder would name a second one main1)
    with bb.function("main", [x, y]):
        with bb.dataflow():
            # (hand-written) a kernel whose result is declared with y's length k
            e = bb.emit(relax.call_tir(exp_gv, [x], TensorStructInfo([k], "float32")))
            out = bb.emit_output(relax.call_tir(neg_gv, [e], TensorStructInfo([k], "float32")))
        bb.emit_func_output(out)
    with caplog.at_level(logging.DEBUG, logger="ember.relax.fuse"):
        fused = FuseOps()(bb.get())
    assert _primitive_funcs(fused) == {}
    assert "not fused: group tir_exp_tir_negative: symbolic k not defined by its inputs" in caplog.text


def test_fuse_tir_keeps_unrelated_primfuncs():
    mod = FuseOps()(legalize_and_annotate(conv_bias_relu()))
    mod["standalone"] = _prim_funcs(mod)["relu"].with_attr("global_symbol", "standalone")
    mod["private_unused"] = _prim_funcs(mod)["relu"]
    out = FuseTIR()(mod)
    # a public kernel stays; an unreferenced private one goes with the dead code (as in TVM)
    assert sorted(_prim_funcs(out)) == ["fused_conv2d_add_relu", "standalone"]


def test_fuse_tir_binds_the_block_output_to_the_fused_call():
    # _function emits `out = lv` after the last op; FuseTIR canonicalises that alias away
    out = FuseTIR()(FuseOps()(legalize_and_annotate(conv_bias_relu())))
    (block,) = out["main"].body.blocks
    (binding,) = block.bindings
    assert not isinstance(binding.var, relax.DataflowVar)
    assert binding.value.op.name == "relax.call_tir"
