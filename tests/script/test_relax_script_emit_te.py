"""R.emit_te inside an @I.ir_module's @R.function, `nonlocal` in a Relax body, f-strings, a dim declared again."""

import numpy as np
import pytest

import ember
from ember import relax, te, topi
from ember.script import ir as I
from ember.script import relax as R
from ember.script import tir as T
from ember.script.errors import ParserError


def _module(dtype: str, name: str):
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((2, 3), dtype)):
            nonlocal dtype
            gv = R.emit_te(topi.exp, x, primfunc_name_hint=f"tir_{name}")
            return gv

    return Module


def test_emit_te_adds_the_prim_func_under_its_hint():
    mod = _module("float32", "exp")
    assert sorted(gv.name_hint for gv in mod.functions) == ["main", "tir_exp"]
    call = mod["main"].body.blocks[0].bindings[0].value
    assert call.op.name == "relax.call_tir" and call.args[0].name_hint == "tir_exp"
    assert str(call.struct_info.dtype) == "float32"


def test_emit_te_matches_the_block_builder():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
    with bb.function("main", [x]):
        gv = bb.emit_te(topi.exp, x, primfunc_name_hint="tir_exp")
        bb.emit_func_output(gv)
    ember.ir.assert_structural_equal(_module("float32", "exp"), bb.get())


def test_emit_te_default_name_and_numerics():
    def add_one(a):
        return te.compute(a.shape, lambda i, j: a[i, j] + 1.0, name="plus")

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            gv = R.emit_te(add_one, x)
            return gv

    assert "add_one" in [gv.name_hint for gv in Module.functions]
    ex = relax.build(Module, "llvm")
    vm = relax.VirtualMachine(ex, ember.cpu())
    a = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_allclose(vm["main"](ember.nd.array(a)).numpy(), a + 1)


def test_emit_te_outside_a_module_is_refused():
    with pytest.raises(ParserError, match="R.emit_te can only be used inside an @R.function of an @I.ir_module"):
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            gv = R.emit_te(topi.exp, x)
            return gv


def test_declaring_a_param_dim_again_keeps_the_same_var():
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor(("n",), "float32")):
            cls = Module  # noqa: F841 - not a leading declaration any more
            n = T.int64()
            gv = R.reshape(x, (n,))
            return gv

    func = Module["main"]
    n_param = func.params[0].struct_info.shape.values[0]
    n_body = func.body.blocks[0].bindings[0].value.args[1].values[0]
    assert n_param is n_body
