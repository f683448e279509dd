"""InlinePrivateFunctions and ExpandTupleArguments on small modules, checked numerically."""

import numpy as np

from ember import relax
from ember.script import ir as I, relax as R


@I.ir_module
class Calls:
    @R.function
    def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
        t = (a, b)
        y = Calls.helper(t)
        z = R.multiply(y, y)
        return z

    @R.function(private=True)
    def helper(args: R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32"))):
        s = R.add(args[0], args[1])
        e = R.exp(s)
        return e


def _run(mod):
    a = np.arange(4, dtype="float32")
    b = np.ones(4, dtype="float32")
    return np.asarray(relax.reference.run(mod, a, b)), np.exp(a + b) ** 2


def test_inline_private_function():
    out = relax.transform.InlinePrivateFunctions()(Calls)
    assert [gv.name_hint for gv in out.functions] == ["main"]
    relax.analysis.check_well_formed(out)
    got, want = _run(out)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_recursive_function_is_not_inlined():
    @I.ir_module
    class Rec:
        @R.function
        def main(x: R.Tensor((), "int64")):
            y = Rec.count(x)
            return y

        @R.function(private=True)
        def count(x: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
            y = Rec.count(x)
            return y

    assert relax.transform.InlinePrivateFunctions()(Rec) is Rec


def test_tuple_argument_literal_is_expanded():
    @I.ir_module
    class Literal:
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
            y = Literal.helper((a, b))
            return y

        @R.function(private=True)
        def helper(args: R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32"))):
            s = R.add(args[0], args[1])
            return s

    out = relax.transform.ExpandTupleArguments()(Literal)
    assert len(out["helper"].params) == 2
    relax.analysis.check_well_formed(out)
    a = np.arange(4, dtype="float32")
    np.testing.assert_allclose(np.asarray(relax.reference.run(out, a, a)), 2 * a)


def test_tuple_held_in_a_variable_is_passed_item_by_item():
    out = relax.transform.ExpandTupleArguments()(Calls)
    assert [str(p.struct_info) for p in out["helper"].params] == ['R.Tensor((4,), dtype="float32")'] * 2
    relax.analysis.check_well_formed(out)
    got, want = _run(out)
    np.testing.assert_allclose(got, want, rtol=1e-6)
