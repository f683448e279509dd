"""relax.analysis.detect_recursion (groups of mutually recursive functions) and
contains_impure_call (nested functions not entered, own recursive calls ignored)."""

from ember import relax as rx
from ember.relax.analysis import contains_impure_call, detect_recursion
from ember.script import ir as I
from ember.script import relax as R


@I.ir_module
class Mutual:
    @R.function
    def a(x: R.Object) -> R.Object:
        return Mutual.b(x)

    @R.function
    def b(x: R.Object) -> R.Object:
        return Mutual.a(x)

    @R.function
    def c(x: R.Object) -> R.Object:
        return Mutual.c(x)

    @R.function
    def d(x: R.Object) -> R.Object:
        return Mutual.a(x)


def test_detect_recursion_groups():
    groups = sorted(sorted(gv.name_hint for gv in g) for g in detect_recursion(Mutual))
    assert groups == [["a", "b"], ["c"]]


@I.ir_module
class Purity:
    @R.function
    def pure(x: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
        return R.add(x, x)

    @R.function(pure=False)
    def impure() -> R.Object:
        y = R.print(format="hello")
        return y


def test_contains_impure_call():
    assert not contains_impure_call(Purity["pure"])
    assert contains_impure_call(Purity["impure"])


def test_nested_impure_function_is_not_a_call():
    x = rx.Var("x", rx.TensorStructInfo([], "int32"))
    inner = rx.Function([], rx.op.print(format="x"), rx.ObjectStructInfo(), is_pure=False)
    outer_body = rx.SeqExpr([rx.BindingBlock([rx.VarBinding(rx.Var("f", inner.struct_info), inner)])], x)
    assert not contains_impure_call(outer_body)
