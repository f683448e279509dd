"""LegalizeOps at the IR level: kernel names, symbolic shapes kept, the all-at-once report
of ops without a legaliser, customised legalisers, and running through the VM."""

import logging

import numpy as np
import pytest

from ember import relax, tir, topi
from ember.ir import Op
from ember.relax import reference
from ember.relax.op import add, exp, matmul, nn
from ember.relax.op.base import register
from ember.relax.transform.legalize_ops import LegalizeOps
from ember.relax.struct_info import TensorStructInfo

register("test_legalize.foo", lambda call, ctx: call.args[0].struct_info, arg_names=("x",))
register("test_legalize.bar", lambda call, ctx: call.args[0].struct_info, arg_names=("x",))


def _call(name, x):
    return relax.Call(Op.get("relax." + name), [x])


def _mlp(n):
    x = relax.Var("x", TensorStructInfo([n, 4], "float32"))
    w = relax.Var("w", TensorStructInfo([4, 8], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w]):
        with bb.dataflow():
            y = bb.emit(matmul(x, w))
            z = bb.emit(nn.relu(y))
            out = bb.emit_output(exp(z))
        bb.emit_func_output(out)
    return bb.get()


def test_kernels_named_after_ops_and_symbolic_shapes_kept():
    n = tir.Var("n", "int64")
    mod = LegalizeOps()(_mlp(n))
    names = sorted(gv.name_hint for gv in mod.functions)
    assert names == ["main", "matmul", "relu", "tir_exp"]
    text = mod.script()
    assert "R.call_tir(cls.matmul" in text and 'R.Tensor((n, 8), dtype="float32")' in text
    relax.analysis.check_well_formed(mod)
    a, b = np.random.rand(5, 4).astype("float32"), np.random.rand(4, 8).astype("float32")
    np.testing.assert_allclose(reference.run(mod, a, b), np.exp(np.maximum(a @ b, 0)), rtol=1e-5)


def test_unsupported_ops_reported_all_at_once():
    x = relax.Var("x", TensorStructInfo([2, 3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(_call("test_legalize.foo", x))
            b = bb.emit(_call("test_legalize.bar", a))
            c = bb.emit(_call("test_legalize.foo", b))
            out = bb.emit_output(add(c, x))
        bb.emit_func_output(out)
    with pytest.raises(ValueError, match=r"LegalizeOps: no legalization for ops: "
                                         r"relax\.test_legalize\.bar \(1 call\), relax\.test_legalize\.foo \(2 calls\)"):
        LegalizeOps()(bb.get())


def test_customize_legalize_map_takes_precedence():
    x = relax.Var("x", TensorStructInfo([2, 3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(_call("test_legalize.foo", x))
        bb.emit_func_output(out)
    custom = {"relax.test_legalize.foo": lambda bb, call: bb.call_te(topi.negative, call.args[0])}
    mod = LegalizeOps(custom)(bb.get())
    a = np.random.rand(2, 3).astype("float32")
    np.testing.assert_allclose(reference.run(mod, a), -a)


def test_unknown_shape_left_alone_with_warning(caplog):
    x = relax.Var("x", TensorStructInfo(None, "float32", ndim=2))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(exp(x))
        bb.emit_func_output(out)
    mod = bb.get()
    with caplog.at_level(logging.WARNING, logger="ember.relax.legalize"):
        assert LegalizeOps()(mod)["main"].script().count("R.exp") == 1
    assert "unknown shape" in caplog.text


def test_module_without_high_level_ops_is_unchanged():
    mod = LegalizeOps()(_mlp(3))
    assert LegalizeOps()(mod) is mod


def test_unsupported_attribute_names_it():
    x = relax.Var("x", TensorStructInfo([1, 2, 4, 4], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(nn.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)], pad_mode="reflect"))
        bb.emit_func_output(out)
    with pytest.raises(NotImplementedError, match="pad_mode='constant', got 'reflect'"):
        LegalizeOps()(bb.get())


@pytest.mark.parametrize("op", ["group_norm", "instance_norm"])
def test_norm_without_center_or_scale_is_refused(op):
    x = relax.Var("x", TensorStructInfo([1, 4, 2, 2], "float32"))
    g = relax.Var("g", TensorStructInfo([4], "float32"))
    b = relax.Var("b", TensorStructInfo([4], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, g, b]):
        with bb.dataflow():
            if op == "group_norm":
                call = nn.group_norm(x, g, b, 2, 1, [2, 3], center=False)
            else:
                call = nn.instance_norm(x, g, b, 1, [2, 3], center=False)
            out = bb.emit_output(call)
        bb.emit_func_output(out)
    match = f"relax.nn.{op} needs center=True and scale=True, got center=False, scale=True"
    with pytest.raises(NotImplementedError, match=match):
        LegalizeOps()(bb.get())


def test_symbolic_batch_through_vm():
    n = tir.Var("n", "int64")
    mod = LegalizeOps()(_mlp(n))
    ex = relax.build(mod, "llvm")
    import ember

    vm = relax.VirtualMachine(ex, ember.cpu())
    for rows in (1, 7):
        a, b = np.random.rand(rows, 4).astype("float32"), np.random.rand(4, 8).astype("float32")
        out = vm["main"](ember.nd.array(a), ember.nd.array(b)).numpy()
        np.testing.assert_allclose(out, np.exp(np.maximum(a @ b, 0)), rtol=1e-5)


def test_register_legalize_decorator():
    from ember.relax.transform.legalize_ops import register_legalize

    register("test_legalize.baz", lambda call, ctx: call.args[0].struct_info, arg_names=("x",))

    @register_legalize("relax.test_legalize.baz")
    def _baz(bb, call):
        return bb.call_te(topi.sqrt, call.args[0])

    x = relax.Var("x", TensorStructInfo([3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(_call("test_legalize.baz", x))
        bb.emit_func_output(out)
    a = np.random.rand(3).astype("float32")
    np.testing.assert_allclose(reference.run(LegalizeOps()(bb.get()), a), np.sqrt(a), rtol=1e-6)
