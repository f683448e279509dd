"""read_at / write_at: a loop body's part of a buffer copied through another storage scope."""

import pytest
from sched_helpers import check

from ember.script import tir as T
from ember.tir import Schedule, ScheduleError
from ember.tir.schedule import analysis as A


@T.prim_func
def matmul_16(A_: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
              C: T.Buffer((16, 16), "float32")):
    for i0, j0, k0, i1, j1, k1 in T.grid(4, 4, 4, 4, 4, 4):
        with T.block("C"):
            vi = T.axis.spatial(16, i0 * 4 + i1)
            vj = T.axis.spatial(16, j0 * 4 + j1)
            vk = T.axis.reduce(16, k0 * 4 + k1)
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A_[vi, vk] * B[vk, vj]


def test_read_at_copies_the_tile_read_in_the_loop():
    sch = Schedule(matmul_16)
    block = sch.get_block("C")
    _, _, k0, _, _, _ = sch.get_loops(block)
    copy = sch.read_at(k0, block, 1, "local")
    copy_block = sch.get(copy)
    assert copy_block.name_hint.endswith("_local")
    assert copy_block.annotations == {"auto_copy": 1}
    assert [iv.var.name for iv in copy_block.iter_vars] == ["v0", "v1"]
    extents = [int(r.extent.value) for r in copy_block.reads[0].region]
    assert extents == [4, 4]  # one 4x4 tile of A per k0 iteration
    assert any(r.buffer.name.endswith("_local") for r in sch.get(block).reads)
    check(sch, matmul_16)


def test_write_at_writes_back_after_the_loop_body():
    sch = Schedule(matmul_16)
    block = sch.get_block("C")
    _, j0, _, _, _, _ = sch.get_loops(block)
    copy = sch.write_at(j0, block, 0, "local")
    loop = A.loops_above(sch.mod["main"], A.find_block(sch.mod["main"], sch.get(copy).name_hint))[-1]
    assert loop.loop_var.name == "j0" and loop.body.seq[-1].block is sch.get(copy)
    check(sch, matmul_16)


def test_read_at_bad_index_is_refused():
    sch = Schedule(matmul_16)
    block = sch.get_block("C")
    k0 = sch.get_loops(block)[2]
    with pytest.raises(ScheduleError, match="has no read buffer 7"):
        sch.read_at(k0, block, 7, "local")

