"""StaticPlanBlockMemory: storage reuse by lifetime, outputs left out, bounds, the printed plan,
and a VM that allocates nothing new on its second call."""

import logging

import numpy as np
import pytest
from relax_build_models import mlp_module, mlp_reference, mlp_weights, relu_chain_module

import ember
from ember import relax, te, tir, topi
from ember.relax import BlockBuilder
from ember.relax.transform.static_plan_block_memory import PLAN_ATTR
from ember.runtime.vm import PooledAllocator


def plan_of(mod, name="main"):
    lowered = relax.get_pipeline("default_build")(mod)
    return lowered.attrs[PLAN_ATTR][name]


def test_chain_reuses_storage_after_last_use():
    plan = plan_of(relu_chain_module(length=4))
    # lv dies when lv1 is computed, so lv2 takes its storage; lv3 is the output
    assert [[t[0] for t in s.tensors] for s in plan.storages] == [["lv", "lv2"], ["lv1"]]
    assert [s.nbytes for s in plan.storages] == [256, 256]
    assert plan.not_planned == (("lv3", "function output"),)
    text = str(plan)
    assert "memory plan of main: 3 tensors in 2 storages, 512 bytes" in text
    assert "storage0: 256 bytes float32 <- lv [0..3], lv2 [4..7]" in text
    assert "not planned: lv3 (function output)" in text


def test_storage_is_not_shared_across_dtypes_and_grows_to_fit():
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([4, 4], "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit_te(topi.nn.relu, x)  # float32, 64 bytes
            b = bb.emit_te(topi.cast, a, "int32")  # int32: cannot take a's storage
            c = bb.emit_te(topi.cast, b, "float32")  # float32: takes a's storage
            d = bb.emit_te(topi.concatenate, [c, c], 0)  # float32, 128 bytes: grows... (c is live)
            e = bb.emit_te(topi.nn.relu, d)
            out = bb.emit_output(bb.emit_te(topi.sum, e))
        bb.emit_func_output(out)
    mod = bb.get()
    plan = plan_of(mod)
    by_tensor = {t[0]: (s.name, s.dtype, s.nbytes) for s in plan.storages for t in s.tensors}
    assert by_tensor["lv"][0] == by_tensor["lv2"][0] and by_tensor["lv"][1] == "float32"
    assert by_tensor["lv1"][1] == "int32" and by_tensor["lv1"][0] != by_tensor["lv"][0]
    # e (128 bytes) reuses the storage freed by c, grown from 64 to 128 bytes
    assert by_tensor["lv4"][0] == by_tensor["lv"][0] and by_tensor["lv4"][2] == 128
    vm = relax.VirtualMachine(relax.build(mod), ember.cpu())
    x_np = np.random.default_rng(1).standard_normal((4, 4), dtype="float32")
    expected = 2 * np.maximum(x_np, 0).astype("int32").astype("float32").sum()
    np.testing.assert_allclose(vm["main"](x_np).numpy(), expected, rtol=1e-6)


def test_values_live_until_their_last_use():
    # a is read again after b is made: b and c must not take a's storage
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([8], "float32"))
    with bb.function("main", [x]):
        a = bb.emit_te(topi.nn.relu, x)
        b = bb.emit_te(topi.negative, a)
        c = bb.emit_te(topi.add, a, b)
        d = bb.emit_te(topi.multiply, c, a)
        bb.emit_func_output(d)
    mod = bb.get()
    plan = plan_of(mod)
    assert len(plan.storages) == 3
    vm = relax.VirtualMachine(relax.build(mod), ember.cpu())
    x_np = np.linspace(-2, 2, 8, dtype="float32")
    a_np = np.maximum(x_np, 0)
    np.testing.assert_allclose(vm["main"](x_np).numpy(), (a_np - a_np) * a_np)


def test_tuple_output_aliases_are_not_planned():
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([8], "float32"))
    with bb.function("main", [x]):
        a = bb.emit_te(topi.nn.relu, x)
        b = bb.emit_te(topi.negative, a)
        t = bb.emit(relax.Tuple([a, b]))
        bb.emit_func_output(t)
    plan = plan_of(bb.get())
    assert plan.storages == ()
    assert {name for name, _ in plan.not_planned} == {"gv", "gv1"}


def test_symbolic_sizes_share_only_equal_sizes():
    plan = plan_of(mlp_module())
    assert [[t[0] for t in s.tensors] for s in plan.storages] == [["lv", "lv2"], ["lv1"]]
    assert plan.storages[0].nbytes == "n * T.int64(128)"


def test_upper_bound_makes_symbolic_sizes_static():
    mod = mlp_module()
    mod["main"] = mod["main"].with_attr("tir_var_upper_bound", {"n": 64})
    plan = plan_of(mod)
    assert [s.nbytes for s in plan.storages] == [64 * 32 * 4, 64 * 32 * 4]
    vm = relax.VirtualMachine(relax.build(mod), ember.cpu())
    w1, b1, w2 = mlp_weights()
    x = np.ones((5, 16), "float32")
    np.testing.assert_allclose(vm["main"](x, w1, b1, w2).numpy(), mlp_reference(x, w1, b1, w2), rtol=1e-4)
    with pytest.raises(ValueError, match="does not fit in a storage of 8192 bytes"):
        vm["main"](np.ones((65, 16), "float32"), w1, b1, w2)


def test_unplanned_tensors_are_logged_with_why(caplog):
    bb = BlockBuilder()
    cond = relax.Var("cond", relax.TensorStructInfo([], "bool"))
    x = relax.Var("x", relax.TensorStructInfo([4], "float32"))
    with bb.function("main", [cond, x]):
        y = bb.emit(relax.If(cond, bb.call_te(topi.nn.relu, x), bb.call_te(topi.negative, x)))
        bb.emit_func_output(y)
    with caplog.at_level(logging.DEBUG, logger="ember.relax.memory_plan"):
        plan_of(bb.get())
    messages = [r.getMessage() for r in caplog.records]
    assert any("main: tensor" in m and "not planned: allocated inside an If branch" in m for m in messages)


def test_second_call_allocates_no_intermediates():
    pool = PooledAllocator()
    exe = relax.build(mlp_module(batch=8))
    vm = relax.VirtualMachine(exe, ember.cpu(), allocator=pool)
    w1, b1, w2 = mlp_weights()
    x = np.ones((8, 16), "float32")
    vm["main"](x, w1, b1, w2)
    first = pool.stats.fresh_allocations
    assert first == len(exe.memory_plans["main"].storages) == 2
    for _ in range(3):
        out = vm["main"](x, w1, b1, w2)
    assert pool.stats.fresh_allocations == first
    assert pool.stats.reused == 3 * first
    np.testing.assert_allclose(out.numpy(), mlp_reference(x, w1, b1, w2), rtol=1e-4)


def test_symbolic_second_call_with_same_batch_allocates_nothing(mlp_exe):
    pool = PooledAllocator()
    vm = relax.VirtualMachine(mlp_exe, ember.cpu(), allocator=pool)
    w1, b1, w2 = mlp_weights()
    vm["main"](np.ones((4, 16), "float32"), w1, b1, w2)
    first = pool.stats.fresh_allocations
    vm["main"](np.ones((4, 16), "float32"), w1, b1, w2)
    assert pool.stats.fresh_allocations == first


_ = tir


def test_symbolic_storage_takes_provably_smaller_tensors():
    # a: [n, 8] dies before c: [n, 4] is made, so c fits in a's storage (n*32 >= n*16 for n >= 0)
    n = tir.Var("n", "int64")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([n, 8], "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit_te(topi.nn.relu, x)
            b = bb.emit_te(topi.sum, a, axis=1, keepdims=True)
            c = bb.emit_te(lambda t: te.compute((t.shape[0], 4), lambda i, j: t[i, j], name="head"), x)
            c = bb.emit_te(topi.add, c, b)
            out = bb.emit_output(bb.emit_te(topi.nn.relu, c))
        bb.emit_func_output(out)
    mod = bb.get()
    plan = plan_of(mod)
    by_tensor = {t[0]: s.name for s in plan.storages for t in s.tensors}
    assert by_tensor["lv"] == by_tensor["lv2"]
    vm = relax.VirtualMachine(relax.build(mod), ember.cpu())
    x_np = np.random.default_rng(4).standard_normal((3, 8), dtype="float32")
    expected = np.maximum(x_np[:, :4] + np.maximum(x_np, 0).sum(1, keepdims=True), 0)
    np.testing.assert_allclose(vm["main"](x_np).numpy(), expected, rtol=1e-5, atol=1e-6)
