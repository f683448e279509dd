"""ember.ir.transform.ApplyPassToFunction: a pass runs on the functions a regex names only."""

import pytest

import ember
from ember import relax
from ember.script import ir as I, relax as R


@I.ir_module
class Two:
    @R.function
    def keep_me(a: R.Tensor((4,), "float32")):
        unused = R.exp(a)
        return a

    @R.function
    def clean_me(a: R.Tensor((4,), "float32")):
        unused = R.exp(a)
        return a


def _bindings(mod, name):
    return sum(len(b.bindings) for b in mod[name].body.blocks)


def test_only_matching_functions_change():
    out = ember.ir.transform.ApplyPassToFunction(relax.transform.DeadCodeElimination(), "clean_.*")(Two)
    assert _bindings(out, "clean_me") == 0 and _bindings(out, "keep_me") == 1


def test_no_match():
    p = ember.ir.transform.ApplyPassToFunction(relax.transform.DeadCodeElimination(), "nothing")
    assert p(Two) is Two
    strict = ember.ir.transform.ApplyPassToFunction(relax.transform.DeadCodeElimination(), "nothing", True)
    with pytest.raises(ValueError, match="no function matches"):
        strict(Two)
