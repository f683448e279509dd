"""pad_einsum: an einsum's iteration space rounded up, through zero-padded buffer copies."""

import pytest
from sched_helpers import check

from ember.script import tir as T
from ember.tir import Schedule, ScheduleError
from ember.tir.schedule import analysis as A


@T.prim_func
def matmul_30(A_: T.Buffer((30, 20), "float32"), B: T.Buffer((20, 30), "float32"),
              C: T.Buffer((30, 30), "float32")):
    for i, j, k in T.grid(30, 30, 20):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A_[vi, vk] * B[vk, vj]


@T.prim_func
def shifted(A_: T.Buffer((31,), "float32"), C: T.Buffer((30,), "float32")):
    for i in range(30):
        with T.block("C"):
            vi = T.axis.spatial(30, i)
            C[vi] = A_[vi + 1]


def test_pad_matmul_to_multiples_of_8():
    sch = Schedule(matmul_30)
    sch.pad_einsum(sch.get_block("C"), [8, 8, 8])
    func = sch.mod["main"]
    names = A.block_names(func)
    assert names == ["root", "A__pad", "B_pad", "C", "C_pad"]
    shapes = {b.name: [int(s.value) for s in b.shape] for b in func.body.block.alloc_buffers}
    assert shapes["C_pad"] == [32, 32] and shapes["B_pad"] == [24, 32]
    assert [int(lp.extent.value) for lp in A.loops_above(func, A.find_block(func, "C"))] == [32, 32, 24]
    check(sch, matmul_30)


def test_pad_refuses_non_einsum():
    sch = Schedule(shifted)
    with pytest.raises(ScheduleError, match="is not an einsum"):
        sch.pad_einsum(sch.get_block("C"), [32])


def test_pad_refuses_bad_factor_count():
    sch = Schedule(matmul_30)
    with pytest.raises(ScheduleError, match="2 padding factors given for the 3 iterators"):
        sch.pad_einsum(sch.get_block("C"), [8, 8])
