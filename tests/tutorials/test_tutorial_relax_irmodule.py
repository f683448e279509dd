"""Tutorial: IRModule — write one in TVMScript, build one with ``relax.BlockBuilder``, or
wrap a function with ``IRModule.from_expr``; inspect, transform, build and run it."""

import numpy as np
import pytest

import ember as tvm
from ember import relax, topi
from ember.script import ir as I
from ember.script import relax as R
from ember.script import tir as T


@I.ir_module
class TVMScriptModule:
    @T.prim_func
    def relu(x: T.handle, y: T.handle):
        n, m = T.int64(), T.int64()
        X = T.match_buffer(x, (n, m), "float32")
        Y = T.match_buffer(y, (n, m), "float32")
        for i, j in T.grid(n, m):
            with T.block("relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @R.function
    def main(
        x: R.Tensor(("n", 784), dtype="float32"), w: R.Tensor((784, 10), "float32")
    ) -> R.Tensor(("n", 10), dtype="float32"):
        n = T.int64()
        cls = TVMScriptModule
        with R.dataflow():
            lv0 = R.matmul(x, w)
            lv1 = R.call_tir(cls.relu, (lv0,), out_sinfo=R.Tensor((n, 10), dtype="float32"))
            R.output(lv1)
        return lv1


def _run(mod: tvm.IRModule, name: str, *args: np.ndarray) -> np.ndarray:
    mod = relax.get_pipeline("zero")(mod)
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    return vm[name](*[tvm.nd.array(a) for a in args]).numpy()


def test_tvmscript_module_inspect_and_run(capsys):
    names = sorted(gv.name_hint for gv, _ in TVMScriptModule.functions_items())
    assert names == ["main", "relu"]
    assert sorted(gv.name_hint for gv in TVMScriptModule.get_global_vars()) == names
    TVMScriptModule["main"].show()
    assert "R.call_tir" in capsys.readouterr().out
    rng = np.random.default_rng(0)
    x = rng.random((3, 784)).astype("float32")
    w = rng.random((784, 10)).astype("float32") - 0.5
    out = _run(TVMScriptModule, "main", x, w)
    tvm.testing.assert_allclose(out, np.maximum(x @ w, 0), rtol=1e-4, atol=1e-5)


def test_printed_module_parses_back():
    text = TVMScriptModule.script()
    parsed = tvm.script.from_source(text)
    tvm.ir.assert_structural_equal(parsed, TVMScriptModule)


def test_block_builder_with_emit_te():
    bb = relax.BlockBuilder()
    n = tvm.tir.Var("n", "int64")
    x = relax.Var("x", R.Tensor((n, 784), "float32"))
    weight = relax.Var("fc1_weight", R.Tensor((256, 784), "float32"))
    bias = relax.Var("fc1_bias", R.Tensor((256,), "float32"))
    with bb.function("main", [x, weight, bias]):
        with bb.dataflow():
            lv0 = bb.emit(relax.op.matmul(x, relax.op.permute_dims(weight)) + bias)
            lv1 = bb.emit(relax.op.nn.relu(lv0))
            lv2 = bb.emit_te(topi.add, lv1, relax.const(1.0, "float32"))
            gv = bb.emit_output(lv2)
        bb.emit_func_output(gv)
    mod = bb.get()
    assert relax.analysis.well_formed(mod)
    rng = np.random.default_rng(1)
    xs = rng.random((5, 784)).astype("float32")
    ws = rng.random((256, 784)).astype("float32") - 0.5
    bs = rng.random(256).astype("float32")
    out = _run(mod, "main", xs, ws, bs)
    tvm.testing.assert_allclose(out, np.maximum(xs @ ws.T + bs, 0) + 1, rtol=1e-4, atol=1e-4)


def test_from_expr_of_a_script_function():
    @R.function
    def double_relu(x: R.Tensor((3, 4), "float32")) -> R.Tensor((3, 4), "float32"):
        with R.dataflow():
            y = R.add(x, x)
            z = R.nn.relu(y)
            R.output(z)
        return z

    mod = tvm.IRModule.from_expr(double_relu)
    assert [gv.name_hint for gv in mod.get_global_vars()] == ["double_relu"]
    a = np.random.default_rng(2).random((3, 4)).astype("float32") - 0.5
    np.testing.assert_allclose(_run(mod, "double_relu", a), np.maximum(a + a, 0))


def test_from_expr_of_a_built_function_is_named_main():
    x = relax.Var("x", relax.TensorStructInfo((3, 4), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("f", [x]):
        gv = bb.emit(relax.op.multiply(x, relax.const(3.0, "float32")))
        bb.emit_func_output(gv)
    func = bb.get()["f"].without_attr("global_symbol")
    mod = tvm.IRModule.from_expr(func)
    assert [gv.name_hint for gv in mod.get_global_vars()] == ["main"]
    a = np.ones((3, 4), "float32")
    np.testing.assert_allclose(_run(mod, "main", a), a * 3)


def test_from_expr_with_unbound_body_call():
    x = relax.Var("x", relax.TensorStructInfo((3, 4), "float32"))
    body = relax.BlockBuilder().normalize(relax.op.add(x, x))
    mod = tvm.IRModule.from_expr(relax.Function([x], body))
    a = np.ones((3, 4), "float32")
    np.testing.assert_allclose(_run(mod, "main", a), a + a)


def test_cls_alias_errors_name_the_function():
    with pytest.raises(Exception, match="no function 'missing'"):

        @I.ir_module
        class Broken:
            @R.function
            def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
                cls = Broken
                y = R.call_tir(cls.missing, (x,), out_sinfo=R.Tensor((2,), "float32"))
                return y


def test_module_attributes_and_function_updates():
    mod = tvm.IRModule.from_expr(TVMScriptModule["main"].without_attr("global_symbol"))
    with_attrs = mod.with_attr("device_num", 1).with_attrs({"note": "tutorial"})
    assert with_attrs.get_attr("device_num") == 1 and with_attrs.get_attr("missing") is None
    assert "device_num" not in with_attrs.without_attr("device_num").attrs
    assert mod.get_attr("device_num") is None  # the original is untouched
    gv = mod.get_global_var("main")
    mod.update_func(gv, TVMScriptModule["main"])
    assert "main" in mod and len(mod.functions) == 1
