"""RemoveUnusedParameters / RemoveUnusedOutputs on private functions: signatures shrink,
call sites follow, results are unchanged."""

import numpy as np

from ember import relax
from ember.script import ir as I, relax as R


@I.ir_module
class Unused:
    @R.function
    def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
        out = Unused.helper(a, b)
        first = out[0]
        return first

    @R.function(private=True)
    def helper(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        s = R.exp(x)
        t = R.add(x, x)
        return (s, t)


def test_unused_parameter_dropped_everywhere():
    out = relax.transform.RemoveUnusedParameters()(Unused)
    assert len(out["helper"].params) == 1
    call = out["main"].body.blocks[0].bindings[0].value
    assert len(call.args) == 1 and call.args[0] is out["main"].params[0]
    relax.analysis.check_well_formed(out)


def test_public_functions_keep_their_signature():
    out = relax.transform.RemoveUnusedParameters()(Unused)
    assert len(out["main"].params) == 2


def test_unread_output_dropped_and_result_unchanged():
    out = relax.transform.RemoveUnusedOutputs()(Unused)
    helper = out["helper"]
    assert isinstance(helper.body.body, relax.Var)  # one item left: returned bare
    assert len(helper.body.blocks[0].bindings) == 1  # t's binding went with it
    relax.analysis.check_well_formed(out)
    a = np.arange(4, dtype="float32")
    np.testing.assert_allclose(np.asarray(relax.reference.run(out, a, a)), np.exp(a), rtol=1e-6)


def test_whole_tuple_use_keeps_every_output():
    @I.ir_module
    class Whole:
        @R.function
        def main(a: R.Tensor((4,), "float32")):
            out = Whole.helper(a)
            return out

        @R.function(private=True)
        def helper(x: R.Tensor((4,), "float32")):
            return (x, x)

    assert relax.transform.RemoveUnusedOutputs()(Whole) is Whole
