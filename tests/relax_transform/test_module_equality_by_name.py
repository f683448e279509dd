"""Modules compare function by function under the same name, whatever their order (passes
that add or rename functions are checked against expected modules written in any order)."""

from ember import relax
from ember.ir import IRModule, structural_equal, structural_hash


def test_module_functions_pair_by_name():
    f = relax.Function([], relax.const(1, "int32"))
    g = relax.Function([], relax.const(2, "int32"))
    a, b = IRModule({"f": f, "g": g}), IRModule({"g": g, "f": f})
    assert structural_equal(a, b)
    assert structural_hash(a) == structural_hash(b)
    assert not structural_equal(a, IRModule({"f": g, "g": f}))
