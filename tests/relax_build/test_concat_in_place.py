"""StaticPlanBlockMemory does a concat in place when its inputs are produced only to be joined:
the producers write into the output's storage and the concat kernel is not called."""

import logging

import numpy as np

import ember
from ember import relax, topi
from ember.relax import BlockBuilder
from ember.relax.transform.static_plan_block_memory import PLAN_ATTR


def concat_module(lead=1, channels=(2, 3), read_input_after=False, fused=False, width=16):
    """main(x, y) = concat([relu(x), y * 2], axis=1) + 1 (+ relu(x) again when asked)."""
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([lead, channels[0], 4, width], "float32"))
    y = relax.Var("y", relax.TensorStructInfo([lead, channels[1], 4, width], "float32"))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            a = bb.emit_te(topi.nn.relu, x)
            b = bb.emit_te(topi.multiply, y, 2.0)
            if fused:  # a concat kernel that also adds: not a plain copy
                c = bb.emit_te(lambda p, q: topi.add(topi.concatenate([p, q], 1), 0.5), a, b)
            else:
                c = bb.emit_te(topi.concatenate, [a, b], 1)
            d = bb.emit_te(topi.add, c, 1.0)
            if read_input_after:
                d = bb.emit_te(lambda t, u: topi.add(t, topi.sum(u)), d, a)
            out = bb.emit_output(d)
        bb.emit_func_output(out)
    return bb.get()


def expected(x, y, read_input_after=False, fused=False):
    a = np.maximum(x, 0)
    d = np.concatenate([a, y * 2], axis=1) + (1.5 if fused else 1.0)
    return d + a.sum() if read_input_after else d


def run(mod, lead=1, channels=(2, 3), width=16):
    ex = relax.build(mod, "llvm")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((lead, channels[0], 4, width)).astype("float32")
    y = rng.standard_normal((lead, channels[1], 4, width)).astype("float32")
    got = relax.VirtualMachine(ex, ember.cpu())["main"](x, y).numpy()
    called = [i.func for i in ex.functions["main"].instrs if hasattr(i, "func")]
    return got, x, y, called


def test_concat_inputs_become_views_of_its_output():
    got, x, y, called = run(concat_module())
    np.testing.assert_allclose(got, expected(x, y), rtol=1e-6)
    assert "concatenate" not in called and "relu" in called and "multiply" in called
    lowered = relax.get_pipeline("default_build")(concat_module())
    (storage,) = lowered.attrs[PLAN_ATTR]["main"].storages
    assert storage.nbytes == 5 * 4 * 16 * 4 and [t[0] for t in storage.tensors] == ["lv2", "lv", "lv1"]
    text = lowered["main"].script()  # the second input starts after the first one's 2*4*16 floats
    assert "lv1: R.Tensor((1, 3, 4, 16), dtype=\"float32\") = R.memory.alloc_tensor(storage0, R.prim_value(T.int64(512))" in text


def test_concat_kept_when_an_input_is_read_afterwards():
    got, x, y, called = run(concat_module(read_input_after=True))
    np.testing.assert_allclose(got, expected(x, y, read_input_after=True), rtol=1e-5)
    assert "concatenate" in called


def test_concat_kept_when_the_joined_ranges_are_not_contiguous():
    got, x, y, called = run(concat_module(lead=2), lead=2)
    np.testing.assert_allclose(got, expected(x, y), rtol=1e-6)
    assert "concatenate" in called


def test_fused_concat_is_not_a_plain_copy():
    got, x, y, called = run(concat_module(fused=True))
    np.testing.assert_allclose(got, expected(x, y, fused=True), rtol=1e-6)
    assert [c for c in called if not c.startswith("vm.")] == ["relu", "multiply", "T_add", "add"]


def test_concat_kept_when_an_input_would_be_misaligned(caplog):
    # the first input is 2*4*3 floats = 96 bytes: the second would start off a 64-byte boundary
    with caplog.at_level(logging.DEBUG, logger="ember.relax.memory_plan"):
        got, x, y, called = run(concat_module(width=3), width=3)
    np.testing.assert_allclose(got, expected(x, y), rtol=1e-6)
    assert "concatenate" in called
    assert "not a multiple of 64" in caplog.text


def test_tvms_pass_alone_keeps_the_concat():
    lowered = relax.transform.CallTIRRewrite()(relax.transform.ToNonDataflow()(concat_module()))
    planned = relax.transform.StaticPlanBlockMemory()(lowered)["main"].script()
    assert "concatenate" in planned and "R.prim_value(T.int64(512))" not in planned


def test_dense_block_of_chained_concats_writes_one_buffer():
    # x0 = relu(x); c1 = concat(x0, 2*x0); c2 = concat(c1, c1 + 1); out = c2 - 3 (DenseNet's pattern)
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([1, 2, 4, 16], "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            x0 = bb.emit_te(topi.nn.relu, x)
            c1 = bb.emit_te(topi.concatenate, [x0, bb.emit_te(topi.multiply, x0, 2.0)], 1)
            c2 = bb.emit_te(topi.concatenate, [c1, bb.emit_te(topi.add, c1, 1.0)], 1)
            out = bb.emit_output(bb.emit_te(topi.subtract, c2, 3.0))
        bb.emit_func_output(out)
    mod = bb.get()
    ex = relax.build(mod, "llvm")
    x_np = np.random.default_rng(1).standard_normal((1, 2, 4, 16)).astype("float32")
    got = relax.VirtualMachine(ex, ember.cpu())["main"](x_np).numpy()
    a = np.maximum(x_np, 0)
    c1_np = np.concatenate([a, 2 * a], axis=1)
    np.testing.assert_allclose(got, np.concatenate([c1_np, c1_np + 1], axis=1) - 3, rtol=1e-6)
    assert not [i.func for i in ex.functions["main"].instrs if "concatenate" in getattr(i, "func", "")]
    (storage,) = relax.get_pipeline("default_build")(mod).attrs[PLAN_ATTR]["main"].storages
    assert storage.nbytes == 8 * 4 * 16 * 4 and len(storage.tensors) == 5  # c2 holds x0, 2*x0, c1, c1 + 1
