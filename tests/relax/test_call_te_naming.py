"""BlockBuilder.call_te names its PrimFunc as TVM does: the hint, else the TE function's
name, else (a lambda) the output tensor's name."""

from ember import relax, te, topi
from ember.script import relax as R


def _names(build):
    x = relax.Var("x", R.Tensor((4,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        y = build(bb, x)
        bb.emit_func_output(y)
    return sorted(gv.name_hint for gv in bb.get().functions if gv.name_hint != "main")


def test_named_after_the_te_function():
    def double_then_exp(a):
        return topi.exp(topi.add(a, a))

    assert _names(lambda bb, x: bb.emit_te(double_then_exp, x)) == ["double_then_exp"]
    assert _names(lambda bb, x: bb.emit_te(topi.exp, x)) == ["exp"]


def test_hint_wins_and_lambda_falls_back_to_the_output_name():
    assert _names(lambda bb, x: bb.emit_te(topi.exp, x, primfunc_name_hint="my_exp")) == ["my_exp"]
    lam = lambda a: te.compute(a.shape, lambda i: a[i] * 2.0, name="twice")  # noqa: E731
    assert _names(lambda bb, x: bb.emit_te(lam, x)) == ["twice"]
