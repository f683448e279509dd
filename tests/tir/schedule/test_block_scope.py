"""ScheduleState.get_sref / get_block_scope: dependences between the blocks of a scope."""

import pytest
from sched_scripts import scale_then_shift_16

from ember import tir
from ember.script import tir as T
from ember.tir.schedule import DepKind


@T.prim_func
def read_then_overwrite(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"),
                        C: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi] + T.float32(1)
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi]


@T.prim_func
def init_then_accumulate(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("init"):
            vi = T.axis.spatial(16, i)
            C[vi] = T.float32(0)
        for k in range(16):
            with T.block("update"):
                vi, vk = T.axis.remap("SR", [i, k])
                C[vi] = C[vi] + A[vi, vk]


def _scope(func, *names):
    state = tir.ScheduleState(func)
    root = state.get_sref(func.body.block)
    blocks = {}
    tir.stmt_functor.post_order_visit(func.body, lambda n: blocks.setdefault(n.name_hint, n)
                                      if isinstance(n, tir.Block) else None)
    return state.get_block_scope(root), [state.get_sref(blocks[n]) for n in names]


def test_read_after_write():
    scope, (b, c) = _scope(scale_then_shift_16, "B", "C")
    (dep,) = scope.get_deps_by_src(b)
    assert dep.kind == DepKind.RAW and dep.src.same_as(b) and dep.dst.same_as(c)
    assert [d.kind for d in scope.get_deps_by_dst(c)] == [DepKind.RAW]
    assert scope.get_deps_by_dst(b) == []


def test_write_after_read():
    scope, (c, b) = _scope(read_then_overwrite, "C", "B")
    (dep,) = scope.get_deps_by_dst(b)
    assert dep.kind == DepKind.WAR and dep.src.same_as(c)


def test_write_after_write_and_read_after_write():
    scope, (init, update) = _scope(init_then_accumulate, "init", "update")
    kinds = sorted(d.kind for d in scope.get_deps_by_src(init))
    assert kinds == [DepKind.RAW, DepKind.WAW]
    assert all(d.dst.same_as(update) for d in scope.get_deps_by_src(init))


def test_get_sref_of_missing_block_is_none():
    state = tir.ScheduleState(scale_then_shift_16)
    other = read_then_overwrite.body.block
    assert state.get_sref(other) is None


def test_block_scope_rejects_non_block():
    scope, _ = _scope(scale_then_shift_16)
    with pytest.raises(TypeError, match="StmtSRef of a block"):
        scope.get_deps_by_src(42)


def test_block_dependence_info():
    from ember.tir import BlockDependenceInfo

    info = BlockDependenceInfo(scale_then_shift_16)
    blocks = {}
    tir.stmt_functor.post_order_visit(scale_then_shift_16.body, lambda n: blocks.setdefault(n.name_hint, n)
                                      if isinstance(n, tir.Block) else None)
    b, c = info.get_sref(blocks["B"]), info.get_sref(blocks["C"])
    assert b.parent.stmt is blocks["root"] and b == info.get_sref(blocks["B"])
    (dep,) = info.get_block_scope(b.parent).get_deps_by_src(b)
    assert dep.dst == c and dep.kind == DepKind.RAW
    with pytest.raises(ValueError, match="not in the function"):
        info.get_sref(read_then_overwrite.body.block)
