"""ember.ir.analysis.collect_call_map."""

import pytest

from ember.ir.analysis import collect_call_map
from ember.script import ir as I
from ember.script import tir as T


@I.ir_module
class TwoKernels:
    @T.prim_func
    def main(A: T.Buffer((4,), "float32")):
        T.evaluate(T.call_extern("int32", "f", A.data))

    @T.prim_func
    def helper(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(0)


def test_functions_without_calls_have_empty_lists():
    calls = collect_call_map(TwoKernels)
    assert {gv.name_hint: [c.name_hint for c in cs] for gv, cs in calls.items()} == {"main": [], "helper": []}


def test_collect_call_map_rejects_non_modules():
    with pytest.raises(TypeError, match="expected an IRModule"):
        collect_call_map("mod")


def test_relax_function_calling_another():
    from ember.script import relax as R

    @I.ir_module
    class Calls:
        @R.function
        def main():
            return Calls.subroutine()

        @R.function
        def subroutine():
            return R.tuple()

    calls = {gv.name_hint: [c.name_hint for c in cs] for gv, cs in collect_call_map(Calls).items()}
    assert calls == {"main": ["subroutine"], "subroutine": []}
