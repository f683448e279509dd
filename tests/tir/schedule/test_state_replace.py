"""ScheduleState.replace: swap a loop or block of the module, with sref bookkeeping."""

import pytest

from ember.ir import IRModule
from ember.script import tir as T
from ember.tir import ScheduleState
from ember.tir.schedule import analysis as A
from ember.tir.stmt import Evaluate, For


@T.prim_func
def two_loops(A_: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A_[vi] + T.float32(1)
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            B[vi] = B[vi] * T.float32(2)


def test_replace_loop_rebuilds_function_and_keeps_old_one():
    state = ScheduleState(two_loops)
    old_func = state.mod["main"]
    loop = old_func.body.block.body.seq[1]
    sref = state.get_sref(loop)
    new_loop = For(loop.loop_var, 0, 8, loop.kind, Evaluate(0))
    state.replace(sref, new_loop)
    assert state.mod["main"].body.block.body.seq[1] is new_loop
    assert old_func.body.block.body.seq[1] is loop  # the old function is untouched
    assert sref.stmt is None  # the replaced loop is gone


def test_replace_block_with_reuse_remaps_the_sref():
    state = ScheduleState(two_loops)
    block = A.find_block(state.mod["main"], "C").block
    sref = state.get_sref(block)
    target = A.find_block(state.mod["main"], "B").block
    state.replace(sref, target, {block: target})
    assert sref.stmt is target and state.get_sref(target) == sref


def test_get_sref_and_replace_in_a_module_of_several_functions():
    state = ScheduleState(IRModule({"main": two_loops, "other": two_loops}))
    loop = state.mod["main"].body.block.body.seq[0]
    sref = state.get_sref(loop)
    assert sref is not None
    state.replace(sref, For(loop.loop_var, 0, 8, loop.kind, Evaluate(0)))
    assert state.mod["other"] is two_loops


def test_replace_of_a_stale_sref_is_refused():
    state = ScheduleState(two_loops)
    loop = state.mod["main"].body.block.body.seq[1]
    sref = state.get_sref(loop)
    state.replace(sref, For(loop.loop_var, 0, 8, loop.kind, Evaluate(0)))
    with pytest.raises(ValueError, match="already replaced"):
        state.replace(sref, loop)
