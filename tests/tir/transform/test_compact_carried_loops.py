"""CompactBufferAllocation keeps a rolling buffer outside the loops that carry its values."""

import numpy as np

import ember
from ember.script import tir as T
from ember.tir import Schedule
from ember.tir.stmt import Allocate
from ember.tir.transform.convert_blocks_to_opaque import CARRIED_LOOPS
from ember.tir.schedule.analysis import walk


@T.prim_func
def box_3x3(A: T.Buffer((12, 12), "int32"), C: T.Buffer((8, 8), "int32")):
    B = T.alloc_buffer((10, 10), "int32")
    for i, j, di, dj in T.grid(10, 10, 3, 3):
        with T.block("B"):
            vi, vj, vdi, vdj = T.axis.remap("SSRR", [i, j, di, dj])
            with T.init():
                B[vi, vj] = 0
            B[vi, vj] = B[vi, vj] + A[vi + vdi, vj + vdj]
    for i, j, di, dj in T.grid(8, 8, 3, 3):
        with T.block("C"):
            vi, vj, vdi, vdj = T.axis.remap("SSRR", [i, j, di, dj])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + B[vi + vdi, vj + vdj]


def _rolled():
    sch = Schedule(box_3x3)
    i, j, _, _ = sch.get_loops(sch.get_block("C"))
    io, ii = sch.split(i, [2, 4])
    jo, ji = sch.split(j, [2, 4])
    sch.reorder(io, jo, ii, ji)
    sch.compute_at(sch.get_block("B"), jo)
    sch.rolling_buffer(sch.get_block("B"), 0)
    return sch.mod["main"]


def _reference(a):
    b = np.array([[a[i:i + 3, j:j + 3].sum() for j in range(10)] for i in range(10)])
    return np.array([[b[i:i + 3, j:j + 3].sum() for j in range(8)] for i in range(8)])


def test_rolling_buffer_compiles_to_correct_code():
    a = np.random.default_rng(0).integers(0, 50, (12, 12)).astype("int32")
    c = ember.nd.array(np.zeros((8, 8), "int32"))
    ember.build(_rolled(), target="llvm")(ember.nd.array(a), c)
    np.testing.assert_array_equal(c.numpy(), _reference(a))


def test_carried_loops_do_not_reach_lowered_code():
    lowered = ember.tir.transform.lower_for_codegen(_rolled())
    allocs = [s for f in lowered.functions.values() for s in walk(f.body) if isinstance(s, Allocate)]
    assert allocs and all(CARRIED_LOOPS not in a.annotations for a in allocs)
