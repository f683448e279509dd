"""ExpandMatmulOfSum: x @ (A + B) -> x @ A + x @ B when the sum is not known ahead of time."""

import numpy as np

from ember import relax
from ember.script import ir as I, relax as R


def _module(num_input=None):
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 4), "float32"), a: R.Tensor((3, 4), "float32"), b: R.Tensor((3, 4), "float32")):
            s = R.add(a, b)
            t = R.permute_dims(s)
            y = R.matmul(x, t)
            return y

    if num_input is not None:
        return Mod.with_functions({gv: f.with_attr("num_input", num_input) for gv, f in Mod.functions.items()}) \
            if hasattr(Mod, "with_functions") else Mod
    return Mod


def _ops(mod):
    return [b.value.op.name for blk in mod["main"].body.blocks for b in blk.bindings]


def test_runtime_sum_is_expanded_and_equal():
    mod = _module()
    out = relax.transform.ExpandMatmulOfSum()(mod)
    assert _ops(out) == ["relax.permute_dims", "relax.matmul", "relax.permute_dims", "relax.matmul", "relax.add"]
    rng = np.random.default_rng(0)
    x, a, b = (rng.standard_normal(s).astype("float32") for s in ((2, 4), (3, 4), (3, 4)))
    got = relax.reference.run(out, x, a, b)
    np.testing.assert_allclose(np.asarray(got), x @ (a + b).T, rtol=1e-5)


def test_weights_sum_is_left_for_ahead_of_time():
    mod = _module(num_input=1)
    assert _ops(relax.transform.ExpandMatmulOfSum()(mod)) == ["relax.add", "relax.permute_dims", "relax.matmul"]
