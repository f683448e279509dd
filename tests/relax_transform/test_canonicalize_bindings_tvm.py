"""CanonicalizeBindings with TVM's semantics: aliases, known tuples, constants, symbolic dims
from match_cast, and block outputs narrowed to DataflowVars."""

import pytest

from ember import relax
from ember.ir import assert_structural_equal
from ember.relax.expr import DataflowVar
from ember.script import ir as I, relax as R, tir as T

canonicalize = relax.transform.CanonicalizeBindings()


def _bindings(mod, name="main", block=0):
    return mod[name].body.blocks[block].bindings


def test_alias_of_dataflow_var_takes_the_output_name():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                a = R.exp(x)
                out = a
                R.output(out)
            return out

    after = canonicalize(Mod)
    (binding,) = _bindings(after)
    assert binding.var.name_hint == "out" and not isinstance(binding.var, DataflowVar)
    assert after["main"].body.body is binding.var
    relax.analysis.check_well_formed(after)


def test_unused_outputs_become_dataflow_vars():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                a = R.exp(x)
                b = R.add(a, a)
                R.output(a, b)
            return b

    a, b = _bindings(canonicalize(Mod))
    assert isinstance(a.var, DataflowVar) and not isinstance(b.var, DataflowVar)


def test_known_tuple_items_and_round_trip():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            t = (x, y)
            first = t[0]
            z = R.add(first, t[1])
            return z

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            t = (x, y)
            z = R.add(x, y)
            return z

    assert_structural_equal(canonicalize(Mod), Expected)

    @I.ir_module
    class RoundTrip:
        @R.function
        def main(p: R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32"))):
            a = p[0]
            b = p[1]
            q = (a, b)
            return q

    assert canonicalize(RoundTrip)["main"].body.body is RoundTrip["main"].params[0]


def test_symbolic_dims_from_match_cast_are_replaced():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((8, 4), "float32")):
            n = T.int64()
            m = T.int64()
            y = R.match_cast(x, R.Tensor((n, m), "float32"))
            z = R.exp(y)
            return z

    after = canonicalize(Mod)
    (binding,) = after["main"].body.blocks[0].bindings
    assert binding.value.args[0] is after["main"].params[0]
    assert [int(d) for d in binding.var.struct_info.shape.values] == [8, 4]


def test_inconsistent_match_casts_are_refused():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((8,), "float32"), y: R.Tensor((9,), "float32")):
            n = T.int64()
            a = R.match_cast(x, R.Tensor((n,), "float32"))
            b = R.match_cast(y, R.Tensor((n,), "float32"))
            return (a, b)

    with pytest.raises(ValueError, match="MatchCast statements must be consistent"):
        canonicalize(Mod)


def test_constant_uses_are_folded_and_bindings_kept():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((), "int32")):
            c = R.const(2, "int32")
            y = R.add(x, c)
            return y

    after = canonicalize(Mod)
    c, y = after["main"].body.blocks[0].bindings
    assert isinstance(y.value.args[1], relax.Constant)


def test_tuple_struct_info_accepts_a_list():
    assert_structural_equal(R.Tuple([R.Tensor, R.Tensor((2,), "int32")]), R.Tuple(R.Tensor, R.Tensor((2,), "int32")))
