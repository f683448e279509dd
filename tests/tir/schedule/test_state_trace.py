"""Getters, handles, module access, copying, error rendering and the trace."""

import json

import pytest
from sched_helpers import check_trace_roundtrip
from sched_workloads import elementwise, matmul, matmul_relu

from ember.ir import IRModule, assert_structural_equal
from ember.tir import Block, For, Schedule, ScheduleError
from ember.tir.schedule import BlockRV, LoopRV, Trace


def test_get_block_and_loops():
    sch = Schedule(matmul())
    block = sch.get_block("C")
    assert isinstance(block, BlockRV)
    assert isinstance(sch.get(block), Block) and sch.get(block).name_hint == "C"
    loops = sch.get_loops(block)
    assert all(isinstance(x, LoopRV) for x in loops)
    assert [sch.get(x).loop_var.name for x in loops] == ["i", "j", "k"]
    assert all(isinstance(sch.get(x), For) for x in loops)


def test_get_block_error_lists_names():
    sch = Schedule(elementwise())
    with pytest.raises(ScheduleError, match=r"Cannot find a block with the name: D \(in function 'main', "
                                            r"whose blocks are: 'root', 'B', 'C'\)"):
        sch.get_block("D")


@pytest.mark.parametrize("level, text", [("fast", "Cannot find a block with the specified name"),
                                         ("none", "(not rendered)")])
def test_get_block_error_at_each_render_level(level, text):
    sch = Schedule(elementwise(), error_render_level=level)
    with pytest.raises(ScheduleError) as info:
        sch.get_block("D")
    assert info.value.args[0] == "ScheduleError: " + text


def test_child_blocks_producers_consumers():
    sch = Schedule(matmul_relu())
    root = sch.get_block("root")
    names = [sch.get(b).name_hint for b in sch.get_child_blocks(root)]
    assert names == ["C", "D"]
    c, d = sch.get_block("C"), sch.get_block("D")
    assert [sch.get(b).name_hint for b in sch.get_consumers(c)] == ["D"]
    assert [sch.get(b).name_hint for b in sch.get_producers(d)] == ["C"]
    assert sch.get_producers(c) == []
    i, _ = sch.get_loops(d)
    assert [sch.get(b).name_hint for b in sch.get_child_blocks(i)] == ["D"]


def test_mod_copy_and_independence():
    sch = Schedule(matmul())
    before = sch.mod
    other = sch.copy()
    i, _, _ = sch.get_loops(sch.get_block("C"))
    sch.split(i, [4, 4])
    assert_structural_equal(other.mod, before)
    assert len(other.get_loops(other.get_block("C"))) == 3
    assert len(sch.get_loops(sch.get_block("C"))) == 4


def test_handles_shared_by_copy():
    sch = Schedule(matmul())
    block = sch.get_block("C")
    other = sch.copy()
    assert other.get(block).name_hint == "C"


def test_show_and_script(capsys):
    sch = Schedule(matmul())
    sch.show()
    out = capsys.readouterr().out
    assert 'T.block("C")' in out


def test_work_on_multi_function_module():
    mod = IRModule({"mm": matmul(), "ew": elementwise()})
    sch = Schedule(mod)
    assert sch.func_working_on is None
    with pytest.raises(ScheduleError, match="call sch.work_on"):
        sch.get_block("C")
    block = sch.get_block("B", func_name="ew")
    sch.split(sch.get_loops(block)[0], [2, 8])
    assert len(sch.get_loops(sch.get_block("B", func_name="ew"))) == 3
    sch.work_on("mm")
    assert sch.func_working_on.name_hint == "mm"
    sch.get_block("C")
    with pytest.raises(ValueError, match="no function named 'zz'"):
        sch.work_on("zz")


def test_error_render_levels():
    sch = Schedule(matmul(), error_render_level="fast")
    _, _, k = sch.get_loops(sch.get_block("C"))
    with pytest.raises(ScheduleError) as info:
        sch.parallel(k)
    assert "<--- error here" not in str(info.value)
    with pytest.raises(ValueError, match="error_render_level must be"):
        Schedule(matmul(), error_render_level="loud")
    with pytest.raises(TypeError, match="expects a PrimFunc or an IRModule"):
        Schedule(3)


def test_trace_printing_and_json():
    sch = Schedule(matmul())
    block = sch.get_block("C")
    i, j, _ = sch.get_loops(block)
    sch.split(i, [None, 4])
    sch.fuse(*sch.get_loops(block)[1:3])
    text = str(sch.trace)
    assert 'b0 = sch.get_block(name="C", func_name="main")' in text
    assert "l1, l2, l3 = sch.get_loops(block=b0)" in text
    assert "sch.split(loop=l1, factors=[None, 4]" in text
    data = sch.trace.as_json()
    assert json.loads(json.dumps(data)) == data
    assert Trace.from_json(data).as_json() == data
    check_trace_roundtrip(sch, matmul())


def test_trace_postproc_removal():
    sch = Schedule(matmul())
    i, _, _ = sch.get_loops(sch.get_block("C"))
    sch.enter_postproc()
    sch.parallel(i)
    kept = Trace.from_json(sch.trace.as_json(remove_postproc=True))
    assert [x.kind.name for x in kept.insts] == ["GetBlock", "GetLoops"]
    fresh = Schedule(matmul())
    sch.trace.apply_to_schedule(fresh, remove_postproc=True)
    assert_structural_equal(fresh.mod, Schedule(matmul()).mod)


def test_wrong_handle_kind():
    sch = Schedule(matmul())
    block = sch.get_block("C")
    with pytest.raises(TypeError, match="expected a LoopRV, got BlockRV"):
        sch.split(block, [4, 4])
    with pytest.raises(ScheduleError, match="does not belong to this schedule"):
        sch.get(LoopRV())


def test_new_block_names_are_unique():
    sch = Schedule(matmul_relu())
    first = sch.cache_read(sch.get_block("D"), 0, "local")
    second = sch.cache_write(sch.get_block("C"), 0, "local")
    assert sch.get(first).name_hint == "C_local"
    assert sch.get(second).name_hint == "C_local_1"


def test_debug_mask_verifies_each_primitive():
    from ember.tir.schedule.analysis import verify

    sch = Schedule(matmul())
    i, j, _ = sch.get_loops(sch.get_block("C"))
    sch.blockize(i)
    assert verify(sch.mod["main"]) is None


def test_instruction_kinds_and_simplified_trace():
    from ember.tir.schedule import InstructionKind

    assert InstructionKind.get("SamplePerfectTile") is InstructionKind.get("sample_perfect_tile")
    assert InstructionKind.get("RFactor").method == "rfactor"
    with pytest.raises(ValueError, match="unknown instruction kind 'Nope'"):
        InstructionKind.get("Nope")
    sch = Schedule(matmul())
    block = sch.get_block("C")
    sch.get_loops(block)
    i, _, _ = sch.get_loops(block)
    sch.sample_categorical([1, 2], [0.5, 0.5])
    sch.parallel(i)
    kinds = [x.kind.name for x in sch.trace.simplified(remove_postproc=True).insts]
    assert kinds == ["GetBlock", "GetLoops", "Parallel"]


def test_get_output_blocks():
    sch = Schedule(matmul_relu())
    outs = sch.get_output_blocks(sch.get_block("root"))
    assert [sch.get(b).name_hint for b in outs] == ["D"]


def test_trace_pop_and_apply_json():
    from ember.tir.schedule import Trace

    sch = Schedule(elementwise())
    sch.get_loops(sch.get_block("B"))
    trace = sch.trace
    last = trace.insts[-1]
    assert trace.pop().same_as(last) and len(trace.insts) == 1
    assert Trace([], {}).pop() is None
    replay = Schedule(elementwise())
    Trace.apply_json_to_schedule(sch.trace.as_json(), replay)
    assert len(replay.trace.insts) == 2  # sch.trace is a copy: popping it left sch alone


def test_instruction_on_its_own_and_purity():
    sch = Schedule(elementwise())
    block = sch.get_block("B")
    sch.get_loops(block)
    get_block, get_loops = sch.trace.insts
    assert str(get_loops) == "_, _ = sch.get_loops(block=_)"
    assert get_block.kind.is_pure and get_loops.kind.is_pure
    from ember.tir.schedule import InstructionKind

    assert not InstructionKind.get("compute_inline").is_pure
    assert block.same_as(block) and not block.same_as(sch.get_block("B"))


def test_foreign_or_removed_handles_are_index_errors():
    sch = Schedule(elementwise())
    block = sch.get_block("B")
    other = sch.copy()
    assert not sch.get_sref(block).same_as(other.get_sref(block))  # srefs of two schedules
    assert sch.get_sref(block).stmt is other.get_sref(block).stmt
    sch.remove_rv(block)
    with pytest.raises(IndexError, match="does not belong to this schedule"):
        sch.get(block)
