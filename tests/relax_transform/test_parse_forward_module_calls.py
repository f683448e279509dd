"""Parsing an @I.ir_module whose Relax function calls a function defined after it: the call
gets the callee's return struct info (passes such as ConvertToDataflow compare against such
modules)."""

from ember import relax
from ember.script import ir as I, relax as R


def test_call_of_a_later_function_knows_its_return_info():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            with R.dataflow():
                y = Mod.helper(x)
                z = R.add(y, R.const(1, "float32"))
                R.output(z)
            return z

        @R.function
        def helper(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            return x

    y = Mod["main"].body.blocks[0].bindings[0].var
    assert isinstance(y.struct_info, relax.TensorStructInfo)
    assert [int(d) for d in y.struct_info.shape.values] == [4]
    relax.analysis.check_well_formed(Mod)


def test_recursive_local_function_parses_and_lifts():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
            @R.function
            def count(i: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
                cond: R.Tensor((), "bool") = R.call_pure_packed(
                    "test.less", i, R.const(3), sinfo_args=(R.Tensor((), "bool"))
                )
                if cond:
                    j = R.add(i, R.const(1))
                    r = count(j)
                else:
                    r = i
                return r

            y = count(x)
            return y

    relax.analysis.check_well_formed(Mod)
    lifted = relax.transform.LambdaLift()(Mod)
    assert "main_count" in [gv.name_hint for gv in lifted.functions]
    relax.analysis.check_well_formed(lifted)
