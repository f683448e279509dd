"""tensorize compares a block with a description after simplification: an expression that
blockize left as ``(v_o*8 + v_i) % 8`` matches the description's ``v % 8``, and an index
``(v_o*8 + v_i) // 8`` into a one-element region matches ``v // 8``."""

import pytest

from ember import tir
from ember.script import tir as T


@T.prim_func
def unpack_desc(packed: T.handle, out: T.handle):
    P = T.match_buffer(packed, (1,), "int32", offset_factor=1)
    O = T.match_buffer(out, (8,), "int32", offset_factor=1)
    with T.block("root"):
        T.reads(P[0:1])
        T.writes(O[0:8])
        for i in range(8):
            with T.block("unpack"):
                vi = T.axis.remap("S", [i])
                O[vi] = T.bitwise_and(T.shift_right(P[vi // 8], vi % 8 * 4), 15)


@T.prim_func
def unpack_impl(packed: T.handle, out: T.handle):
    P = T.match_buffer(packed, (1,), "int32", offset_factor=1)
    O = T.match_buffer(out, (8,), "int32", offset_factor=1)
    with T.block("root"):
        T.reads(P[0:1])
        T.writes(O[0:8])
        T.evaluate(T.call_extern("int32", "unpack_nibbles", P.data, P.elem_offset, O.data, O.elem_offset))


tir.TensorIntrin.register("test_unpack_nibbles", unpack_desc, unpack_impl, override=True)


@T.prim_func
def unpack_all(P: T.Buffer((4, 8), "int32"), O: T.Buffer((4, 64), "int32")):
    for i, j in T.grid(4, 64):
        with T.block("O"):
            vi, vj = T.axis.remap("SS", [i, j])
            O[vi, vj] = T.bitwise_and(T.shift_right(P[vi, vj // 8], vj % 8 * 4), 15)


def test_blockized_indices_match_after_simplification():
    sch = tir.Schedule(unpack_all)
    _, j = sch.get_loops(sch.get_block("O"))
    _, ji = sch.split(j, factors=[None, 8])
    sch.tensorize(ji, "test_unpack_nibbles")
    assert "unpack_nibbles" in sch.mod["main"].script()


def test_a_different_shift_still_does_not_match():
    @T.prim_func
    def unpack_wrong(P: T.Buffer((4, 8), "int32"), O: T.Buffer((4, 64), "int32")):
        for i, j in T.grid(4, 64):
            with T.block("O"):
                vi, vj = T.axis.remap("SS", [i, j])
                O[vi, vj] = T.bitwise_and(T.shift_right(P[vi, vj // 8], vj % 4 * 4), 15)

    sch = tir.Schedule(unpack_wrong)
    _, j = sch.get_loops(sch.get_block("O"))
    _, ji = sch.split(j, factors=[None, 8])
    with pytest.raises(tir.ScheduleError, match="does not match the description"):
        sch.tensorize(ji, "test_unpack_nibbles")
