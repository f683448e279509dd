"""TopologicalSort: dataflow bindings reordered depth- or breadth-first, from inputs or outputs."""

import pytest

import ember
from ember import relax
from ember.script import ir as I, relax as R


@I.ir_module
class TwoChains:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        with R.dataflow():
            a = R.multiply(x, x)
            p = R.exp(x)
            b = R.add(a, x)
            q = R.add(p, x)
            out = R.add(b, q)
            R.output(out)
        return out


def _names(mod):
    return [b.var.name_hint for b in mod["main"].body.blocks[0].bindings]


def test_depth_first_from_inputs_finishes_each_chain():
    out = relax.transform.TopologicalSort("depth-first", "from-inputs")(TwoChains)
    assert _names(out) == ["a", "b", "p", "q", "out"]
    relax.analysis.check_well_formed(out)


def test_breadth_first_keeps_levels():
    out = relax.transform.TopologicalSort("breadth-first", "from-inputs")(TwoChains)
    assert _names(out) == ["a", "p", "b", "q", "out"]


def test_depth_first_from_outputs_follows_output_arguments():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                p = R.exp(x)
                a = R.multiply(x, x)
                q = R.add(p, x)
                b = R.add(a, x)
                dead = R.add(q, x)
                out = R.add(b, q)
                R.output(out)
            return out

    out = relax.transform.TopologicalSort("depth-first", "from-outputs")(Mod)
    # the walk runs backward from `out` (b before q), an unused binding blocks q until it is
    # placed, and the walk is then reversed
    assert _names(out) == ["p", "q", "dead", "a", "b", "out"]


def test_sorted_order_is_unchanged_object():
    sorted_once = relax.transform.TopologicalSort()(TwoChains)
    assert relax.transform.TopologicalSort()(sorted_once) is sorted_once


def test_bad_order_is_refused():
    with pytest.raises(ValueError, match="order must be one of"):
        relax.transform.TopologicalSort("random")
    with pytest.raises(ValueError, match="direction must be one of"):
        relax.transform.TopologicalSort("depth-first", "sideways")
    assert ember.relax.transform.TopologicalSort is relax.transform.TopologicalSort
