"""LiftTransformParams(shared_transform=...): one transform_params serves several functions;
only what every function computes alike is lifted, and running transform_params then any
function equals running the original function."""

import numpy as np
import pytest

import ember as tvm
from ember import relax
from ember.ir import IRModule
from ember.script import ir as I, relax as R


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


def _run(mod, name, *args):
    alone = IRModule({tvm.ir.GlobalVar("main"): mod[name]})
    return relax.reference.run(alone, *args)


def test_only_common_transforms_are_lifted_and_results_match():
    out = relax.transform.LiftTransformParams(shared_transform=True)(TwoHeads)
    assert sorted(gv.name_hint for gv in out.functions) == ["decode", "prefill", "transform_params"]
    relax.analysis.check_well_formed(out)
    # wt is computed alike by both functions; s*s only by decode, so s stays a weight
    assert [p.name_hint for p in out["decode"].params] == ["x", "s", "wt"]
    assert [p.name_hint for p in out["prefill"].params] == ["x", "s", "wt"]
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4)).astype("float32")
    w = rng.standard_normal((3, 4)).astype("float32")
    s = rng.standard_normal(3).astype("float32")
    params = [np.asarray(p) for p in _run(out, "transform_params", (w, s))]
    np.testing.assert_allclose(np.asarray(_run(out, "decode", x, *params)), x @ w.T + s * s, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(_run(out, "prefill", x, *params)), x @ w.T - s, rtol=1e-5)


def test_named_functions_only():
    out = relax.transform.LiftTransformParams(shared_transform=["decode"])(TwoHeads)
    assert [p.name_hint for p in out["decode"].params] == ["x", "wt", "s2"]
    assert out["prefill"] is TwoHeads["prefill"]


def test_second_round_changes_nothing():
    once = relax.transform.LiftTransformParams(shared_transform=True)(TwoHeads)
    twice = relax.transform.LiftTransformParams(shared_transform=True)(once)
    tvm.ir.assert_structural_equal(once, twice)


def test_mismatched_weights_are_refused():
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
