"""ConvertToDataflow: runs of pure bindings become dataflow blocks; impure calls split them."""

import numpy as np
import pytest

from ember import relax
from ember.relax.expr import BindingBlock, DataflowBlock, DataflowVar
from ember.script import ir as I, relax as R


@I.ir_module
class Mixed:
    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")):
        a = R.exp(x)
        b = R.add(a, x)
        _ = R.print(format="between")
        c = R.multiply(b, b)
        d = R.add(c, b)
        return d


def test_pure_runs_become_blocks_split_at_impure_calls():
    out = relax.transform.ConvertToDataflow()(Mixed)
    blocks = out["main"].body.blocks
    assert [type(b) for b in blocks] == [DataflowBlock, BindingBlock, DataflowBlock]
    first = blocks[0].bindings
    assert isinstance(first[0].var, DataflowVar) and not isinstance(first[1].var, DataflowVar)
    relax.analysis.check_well_formed(out)


def test_min_size_leaves_short_runs_alone():
    out = relax.transform.ConvertToDataflow(min_size=3)(Mixed)
    assert not any(isinstance(b, DataflowBlock) for b in out["main"].body.blocks)
    with pytest.raises(ValueError, match="min_size"):
        relax.transform.ConvertToDataflow(min_size=0)


def test_result_computes_the_same_values():
    @I.ir_module
    class Pure:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            a = R.exp(x)
            b = R.add(a, x)
            return b

    out = relax.transform.ConvertToDataflow()(Pure)
    assert isinstance(out["main"].body.blocks[0], DataflowBlock)
    data = np.arange(4, dtype="float32")
    got = relax.reference.run(out, data)
    np.testing.assert_allclose(np.asarray(got), np.exp(data) + data, rtol=1e-6)
