"""LambdaLift: local functions become private globals; captured variables go through closures."""

import numpy as np

from ember import relax
from ember.script import ir as I, relax as R


def test_function_without_captures_is_called_directly():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            @R.function
            def double(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
                b = R.add(a, a)
                return b

            y = double(x)
            return y

    out = relax.transform.LambdaLift()(Mod)
    assert sorted(gv.name_hint for gv in out.functions) == ["main", "main_double"]
    assert "global_symbol" not in out["main_double"].attrs
    call = out["main"].body.blocks[0].bindings[0].value
    assert call.op.name_hint == "main_double"
    relax.analysis.check_well_formed(out)
    x = np.arange(4, dtype="float32")
    np.testing.assert_allclose(np.asarray(relax.reference.run(out, x)), 2 * x)


def test_captured_variable_makes_a_closure():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            @R.function
            def add_x(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
                b = R.add(a, x)
                return b

            z = add_x(y)
            return z

    out = relax.transform.LambdaLift()(Mod)
    lifted = out["main_add_x"]
    assert len(lifted.params) == 2  # a, then the captured x
    closure, call = out["main"].body.blocks[0].bindings
    assert closure.value.op.name == "relax.make_closure"
    assert call.value.op.name == "relax.invoke_pure_closure"
    assert [int(d) for d in call.var.struct_info.shape.values] == [4]


def test_fresh_name_when_taken_and_no_change_without_locals():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            @R.function
            def inner(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
                return a

            y = inner(x)
            return y

        @R.function
        def main_inner(x: R.Tensor((4,), "float32")):
            return x

    out = relax.transform.LambdaLift()(Mod)
    assert "main_inner_0" in [gv.name_hint for gv in out.functions]
    assert relax.transform.LambdaLift()(out) is out
