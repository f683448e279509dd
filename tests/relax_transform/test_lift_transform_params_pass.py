"""LiftTransformParams: weight-only computations move to <name>_transform_params; running the
transform then the new main equals running the original main."""

import numpy as np

from ember import relax
from ember.script import ir as I, relax as R


@I.ir_module
class Model:
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), w: R.Tensor((3, 4), "float32"), b: R.Tensor((3,), "float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wt = R.permute_dims(w, [1, 0])
            y = R.matmul(x, wt)
            z = R.add(y, b)
            R.output(z)
        return z


def test_lifted_functions_compose_to_the_original():
    out = relax.transform.LiftTransformParams()(Model)
    assert sorted(gv.name_hint for gv in out.functions) == ["main", "main_transform_params"]
    assert [p.name_hint for p in out["main"].params] == ["x", "b", "wt"]
    relax.analysis.check_well_formed(out)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4)).astype("float32")
    w = rng.standard_normal((3, 4)).astype("float32")
    b = rng.standard_normal(3).astype("float32")
    params = relax.reference.run(_alone(out, "main_transform_params"), (w, b))
    got = relax.reference.run(_alone(out, "main"), x, *[np.asarray(p) for p in params])
    np.testing.assert_allclose(np.asarray(got), x @ w.T + b, rtol=1e-5)


def _alone(mod, name):
    """``mod[name]`` as the entry function ``main`` of its own module."""
    from ember.ir import IRModule

    return IRModule({"main": mod[name].without_attr("global_symbol")})


def test_stop_lift_params_and_idempotence():
    @I.ir_module
    class Stop:
        @R.function
        def main(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32")):
            R.func_attr({"num_input": 1})
            with R.dataflow():
                e = R.exp(w)
                kept = R.builtin.stop_lift_params(e)
                s = R.add(kept, w)
                y = R.add(x, s)
                R.output(y)
            return y

    once = relax.transform.LiftTransformParams()(Stop)
    assert [p.name_hint for p in once["main"].params] == ["x", "w", "e"]
    twice = relax.transform.LiftTransformParams()(once)
    assert twice is once
