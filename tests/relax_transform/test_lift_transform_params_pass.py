"""LiftTransformParams: weight-only computations move to <name>_transform_params (or, with
shared_transform=..., to one transform_params that serves several functions, lifting only
what every function computes alike); running the transform then the new function equals
running the original one."""

import numpy as np
import pytest

import ember as tvm
from ember import relax
from ember.ir import IRModule
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


@I.ir_module
class TwoHeads:
    @R.function
    def decode(x: R.Tensor((2, 4), "float32"), w: R.Tensor((3, 4), "float32"), s: R.Tensor((3,), "float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wt = R.permute_dims(w, [1, 0])
            y = R.matmul(x, wt)
            s2 = R.multiply(s, s)
            z = R.add(y, s2)
            R.output(z)
        return z

    @R.function
    def prefill(x: R.Tensor((2, 4), "float32"), w: R.Tensor((3, 4), "float32"), s: R.Tensor((3,), "float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wt = R.permute_dims(w, [1, 0])
            y = R.matmul(x, wt)
            z = R.subtract(y, s)
            R.output(z)
        return z


def _run_alone(mod, name, *args):
    """Run ``mod[name]`` (as the entry ``main`` of its own module) on the reference interpreter."""
    alone = IRModule({"main": mod[name].without_attr("global_symbol")})
    return relax.reference.run(alone, *args)


def _inputs(seed):
    """x (2, 4), w (3, 4) and a vector (3,): the arguments of every function above."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype("float32") for shape in ((2, 4), (3, 4), (3,))]


def test_lifted_functions_compose_to_the_original():
    out = relax.transform.LiftTransformParams()(Model)
    assert sorted(gv.name_hint for gv in out.functions) == ["main", "main_transform_params"]
    assert [p.name_hint for p in out["main"].params] == ["x", "b", "wt"]
    relax.analysis.check_well_formed(out)
    x, w, b = _inputs(0)
    params = [np.asarray(p) for p in _run_alone(out, "main_transform_params", (w, b))]
    np.testing.assert_allclose(np.asarray(_run_alone(out, "main", x, *params)), x @ w.T + b, rtol=1e-5)


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


# -- shared_transform: one transform_params for several functions -------------------------

def test_shared_transform_lifts_only_common_transforms_and_results_match():
    out = relax.transform.LiftTransformParams(shared_transform=True)(TwoHeads)
    assert sorted(gv.name_hint for gv in out.functions) == ["decode", "prefill", "transform_params"]
    relax.analysis.check_well_formed(out)
    # wt is computed alike by both functions; s*s only by decode, so s stays a weight
    assert [p.name_hint for p in out["decode"].params] == ["x", "s", "wt"]
    assert [p.name_hint for p in out["prefill"].params] == ["x", "s", "wt"]
    x, w, s = _inputs(1)
    params = [np.asarray(p) for p in _run_alone(out, "transform_params", (w, s))]
    np.testing.assert_allclose(np.asarray(_run_alone(out, "decode", x, *params)), x @ w.T + s * s, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(_run_alone(out, "prefill", x, *params)), x @ w.T - s, rtol=1e-5)


def test_shared_transform_of_named_functions_only():
    out = relax.transform.LiftTransformParams(shared_transform=["decode"])(TwoHeads)
    assert [p.name_hint for p in out["decode"].params] == ["x", "wt", "s2"]
    assert out["prefill"] is TwoHeads["prefill"]


def test_shared_transform_second_round_changes_nothing():
    once = relax.transform.LiftTransformParams(shared_transform=True)(TwoHeads)
    twice = relax.transform.LiftTransformParams(shared_transform=True)(once)
    tvm.ir.assert_structural_equal(once, twice)


def test_shared_transform_refuses_mismatched_weights():
    @I.ir_module
    class Mismatch:
        @R.function
        def a(x: R.Tensor((2, 4), "float32"), w: R.Tensor((3, 4), "float32")):
            R.func_attr({"num_input": 1})
            wt = R.permute_dims(w, [1, 0])
            return R.matmul(x, wt)

        @R.function
        def b(x: R.Tensor((2, 4), "float32"), w: R.Tensor((5, 4), "float32")):
            R.func_attr({"num_input": 1})
            wt = R.permute_dims(w, [1, 0])
            return R.matmul(x, wt)

    with pytest.raises(tvm.TVMError, match="weight 0 of b"):
        relax.transform.LiftTransformParams(shared_transform=True)(Mismatch)
