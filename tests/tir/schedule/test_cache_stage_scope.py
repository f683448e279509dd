"""cache_read / cache_write inside a block scope: where the stage goes, compact copies,
consumer_blocks; each schedule computes what the original does (numerically)."""

from sched_helpers import check, loop_extents

from ember.ir import assert_structural_equal
from ember.script import tir as T
from ember.tir import Schedule


@T.prim_func
def tiles_in_scope(B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    A = T.alloc_buffer((32, 32))
    for i0, j0 in T.grid(4, 4):
        with T.block("scope"):
            i, j = T.axis.remap("SS", [i0, j0])
            for x, y in T.grid(8, 8):
                with T.block("A"):
                    vi = T.axis.spatial(32, i * 8 + x)
                    vj = T.axis.spatial(32, j * 8 + y)
                    A[vi, vj] = T.Cast("float32", vi * 32 + vj)
            for x, y in T.grid(8, 8):
                with T.block("B"):
                    vi = T.axis.spatial(32, i * 8 + x)
                    vj = T.axis.spatial(32, j * 8 + y)
                    B[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(32, 32):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def tiles_in_scope_cache_read(B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    A = T.alloc_buffer((32, 32))
    for i0, j0 in T.grid(4, 4):
        with T.block("scope"):
            i, j = T.axis.remap("SS", [i0, j0])
            A_local = T.alloc_buffer((8, 8), scope="local")
            for x, y in T.grid(8, 8):
                with T.block("A"):
                    vi = T.axis.spatial(32, i * 8 + x)
                    vj = T.axis.spatial(32, j * 8 + y)
                    A[vi, vj] = T.Cast("float32", vi * 32 + vj)
            for ax0, ax1 in T.grid(8, 8):
                with T.block("A_local"):
                    v0, v1 = T.axis.remap("SS", [ax0, ax1])
                    A_local[v0, v1] = A[i * 8 + v0, j * 8 + v1]
            for x, y in T.grid(8, 8):
                with T.block("B"):
                    vi = T.axis.spatial(32, i * 8 + x)
                    vj = T.axis.spatial(32, j * 8 + y)
                    B[vi, vj] = A_local[vi - i * 8, vj - j * 8] + T.float32(1)
    for i, j in T.grid(32, 32):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] * T.float32(2)


def test_cache_read_in_block_scope_is_compact():
    sch = Schedule(tiles_in_scope)
    stage = sch.cache_read(sch.get_block("B"), 0, "local")
    assert sch.get(stage).name_hint == "A_local"
    assert_structural_equal(sch.mod["main"].body, tiles_in_scope_cache_read.body)
    check(sch, tiles_in_scope)


def test_cache_write_in_block_scope_is_compact():
    sch = Schedule(tiles_in_scope)
    sch.cache_write(sch.get_block("A"), 0, "local")
    sch.cache_write(sch.get_block("B"), 0, "global")
    func = sch.mod["main"]
    scope = sch.get(sch.get_block("scope"))
    assert [tuple(int(s) for s in b.shape) for b in scope.alloc_buffers] == [(8, 8), (8, 8)]
    assert len(func.body.block.alloc_buffers) == 1  # A only: the stages live in the scope
    check(sch, tiles_in_scope)


def test_cache_write_of_scope_block_writes_back_at_the_root():
    sch = Schedule(tiles_in_scope)
    sch.cache_write(sch.get_block("scope"), 0, "global")
    root = sch.mod["main"].body.block
    assert [b.name for b in root.alloc_buffers] == ["A", "A_global"]
    check(sch, tiles_in_scope)


def _read_buffers(sch, block_name: str) -> list[str]:
    return [r.buffer.name for r in sch.get(sch.get_block(block_name)).reads]


def _last_block_at_the_root(sch) -> str:
    """The name of the block in the last statement of the root block's body."""
    last = sch.mod["main"].body.block.body.seq[-1]
    while not hasattr(last, "block"):
        last = last.body
    return last.block.name_hint


@T.prim_func
def produce_then_two_readers(C: T.Buffer((64,), "float32"), D: T.Buffer((64,), "float32")):
    A = T.alloc_buffer((64,))
    B = T.alloc_buffer((64,))
    for i in range(4):
        for j in range(16):
            with T.block("A"):
                vi = T.axis.spatial(64, i * 16 + j)
                A[vi] = T.Cast("float32", vi)
        for j in range(16):
            with T.block("B"):
                vi = T.axis.spatial(64, i * 16 + j)
                B[vi] = A[vi] + T.float32(1)
    for i in range(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            C[vi] = A[vi] * B[vi]
    for i in range(64):
        with T.block("D"):
            vi = T.axis.spatial(64, i)
            D[vi] = B[vi]


def test_cache_read_goes_into_the_loop_shared_with_the_producer():
    sch = Schedule(produce_then_two_readers)
    stage = sch.cache_read(sch.get_block("B"), 0, "global")
    assert loop_extents(sch, stage) == [4, 16]
    assert sch.get(sch.get_loops(stage)[0]) is sch.get(sch.get_loops(sch.get_block("A"))[0])
    check(sch, produce_then_two_readers)


def test_cache_read_for_chosen_consumers_only():
    sch = Schedule(produce_then_two_readers)
    sch.cache_read(sch.get_block("B"), 0, "global", consumer_blocks=[sch.get_block("C")])
    assert _read_buffers(sch, "C") == ["A_global", "B"]
    assert _read_buffers(sch, "B") == ["A"]
    check(sch, produce_then_two_readers)


def test_cache_write_for_chosen_consumers():
    sch = Schedule(produce_then_two_readers)
    stage = sch.cache_write(sch.get_block("A"), 0, "global", consumer_blocks=[sch.get_block("C")])
    assert _read_buffers(sch, "C") == ["A_global", "B"]
    assert _read_buffers(sch, "B") == ["A"]
    # the write-back goes before B, the first reader of A itself, inside the shared loop
    assert len(sch.get_loops(stage)) == 2
    check(sch, produce_then_two_readers)


def test_cache_write_without_other_readers_writes_back_last():
    sch = Schedule(produce_then_two_readers)
    sch.cache_write(sch.get_block("A"), 0, "global",
                    consumer_blocks=[sch.get_block("B"), sch.get_block("C")])
    assert _last_block_at_the_root(sch) == "A_global"
    check(sch, produce_then_two_readers)


@T.prim_func
def negate_in_place(A: T.Buffer((16,), "float32")):
    for i in range(1):  # noqa: B007 - a unit loop around the block
        with T.block("negate"):
            T.reads(A[0:16])
            T.writes(A[0:16])
            for k in range(16):
                A[k] = T.float32(0) - A[k]


def test_cache_inplace_copies_in_and_back_around_the_block():
    sch = Schedule(negate_in_place)
    load, store = sch.cache_inplace("negate", 0, "local")
    assert [sch.get(load).name_hint, sch.get(store).name_hint] == ["A_local", "A_local_1"]
    block = sch.get(sch.get_block("negate"))
    assert [r.buffer.name for r in block.reads + block.writes] == ["A_local", "A_local"]
    # both stages sit in the block's loop, around it
    assert sch.get(sch.get_loops(load)[0]) is sch.get(sch.get_loops(sch.get_block("negate"))[0])
    check(sch, negate_in_place)


def test_cache_write_ignores_readers_before_the_writer():
    sch = Schedule(negate_in_place)
    _, store = sch.cache_inplace("negate", 0, "local")
    sch.cache_read(sch.get_block("A_local"), 0, "global", consumer_blocks=["A_local"])
    sch.cache_write(store, 0, "global")  # A's copy-in stage reads A earlier: the write-back still goes last
    assert _last_block_at_the_root(sch) == "A_global_1"
    check(sch, negate_in_place)
