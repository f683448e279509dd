"""AttachGlobalSymbol and NormalizeGlobalVar: function names, symbols and references agree."""

import pytest

from ember import relax
from ember.ir import IRModule
from ember.script import ir as I, relax as R, tir as T


def _module():
    @I.ir_module
    class Mod:
        I.module_attrs({"system_lib_prefix": "lib_"})

        @T.prim_func(private=True)
        def fill(x: T.Buffer((2,), "float32")):
            x[0] = T.float32(1)
            x[1] = T.float32(2)

        @R.function(private=True)
        def main() -> R.Tensor((2,), "float32"):
            gv = R.call_tir(Mod.fill, (), R.Tensor((2,), dtype="float32"))
            return gv

    return Mod


def test_attach_global_symbol_prefixes_kernels_only():
    out = relax.transform.AttachGlobalSymbol()(_module())
    names = sorted(gv.name_hint for gv in out.functions)
    assert names == ["lib_fill", "main"]
    assert out["lib_fill"].attrs["global_symbol"] == "lib_fill"
    assert out["main"].attrs["global_symbol"] == "main"
    call = out["main"].body.blocks[0].bindings[0].value
    assert call.args[0].name_hint == "lib_fill"
    relax.analysis.check_well_formed(out)


def test_attach_global_symbol_keeps_existing_symbols():
    mod = relax.transform.AttachGlobalSymbol()(_module())
    assert relax.transform.AttachGlobalSymbol()(mod) is mod


def test_normalize_global_var_renames_to_symbols():
    @I.ir_module(check_well_formed=False)
    class Mod:
        @R.function(private=True)
        def f():
            return R.const(1, "int32")

        @R.function
        def g():
            R.func_attr({"global_symbol": "f"})
            gv: R.Tensor((), dtype="int32") = Mod.f()
            return gv

    assert not relax.analysis.well_formed(Mod)
    out = relax.transform.NormalizeGlobalVar()(Mod)
    relax.analysis.check_well_formed(out)
    assert set(gv.name_hint for gv in out.functions) == {"f", "f1"}
    call = out["f"].body.blocks[0].bindings[0].value
    assert call.op.name_hint == "f1"


def test_two_public_functions_with_one_name_are_refused():
    a = relax.Function([], relax.const(1, "int32"), attrs={"global_symbol": "f"})
    b = relax.Function([], relax.const(2, "int32"), attrs={"global_symbol": "f"})
    mod = IRModule({"f": a, "g": b})
    with pytest.raises(ValueError, match="both public"):
        relax.transform.NormalizeGlobalVar()(mod)
