"""relax.analysis.computable_at_compile_time: which values depend only on the weights."""

from ember import relax
from ember.script import relax as R, tir as T


def _names(func):
    return [v.name_hint for v in relax.analysis.computable_at_compile_time(func)]


def test_without_num_input_nothing_is_known():
    @R.function
    def f(a: R.Tensor([4], "float32"), w: R.Tensor([4], "float32")):
        b = R.add(w, w)
        return b

    assert _names(f) == []


def test_weights_and_their_preprocessing_in_definition_order():
    @R.function
    def f(a: R.Tensor([4], "float32"), w: R.Tensor([4], "float32"), s: R.Tensor([4], "float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            x = R.add(a, a)
            ws = R.multiply(w, s)
            y = R.add(x, ws)
            wss = R.add(ws, ws)
            R.output(y, wss)
        return (y, wss)

    assert _names(f) == ["w", "s", "ws", "wss"]


def test_shape_of_a_runtime_input_is_not_known():
    @R.function
    def f(a: R.Tensor(["n"], "float32"), w: R.Tensor(["m"], "float32")):
        R.func_attr({"num_input": 1})
        n = T.int64()
        m = T.int64()
        from_w = R.zeros(R.shape([m]), "float32")
        from_a = R.zeros(R.shape([n]), "float32")
        return (from_w, from_a)

    assert _names(f) == ["w", "from_w"]


def test_match_cast_of_a_weight_defines_its_dims():
    @R.function
    def f(a: R.Tensor(ndim=1, dtype="float32"), w: R.Tensor(ndim=1, dtype="float32")):
        R.func_attr({"num_input": 1})
        k = T.int64()
        n = T.int64()
        w2 = R.match_cast(w, R.Tensor([k], "float32"))
        a2 = R.match_cast(a, R.Tensor([n], "float32"))
        z = R.zeros(R.shape([k]), "float32")
        return (z, a2, w2)

    assert _names(f) == ["w", "w2", "z"]
