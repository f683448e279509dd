"""block_access_regions over loops with symbolic extents: [0, n) rather than the whole
dimension, as TVM infers the region."""

from ember import tir
from ember.ir import IntImm, Range
from ember.tir.analysis import block_access_regions


def _block_reading_prefix():
    n = tir.Var("n", "int32")
    a = tir.decl_buffer((16,), "float32", "A")
    b = tir.decl_buffer((1,), "float32", "B")
    k = tir.Var("k", "int32")
    body = tir.For(k, 0, n, tir.ForKind.SERIAL, tir.BufferStore(b, tir.BufferLoad(b, [0]) + tir.BufferLoad(a, [k]), [0]))
    return n, a, tir.Block([], [], [], "prefix_sum", body)


def test_symbolic_loop_extent_gives_symbolic_region():
    n, a, block = _block_reading_prefix()
    reads, _ = block_access_regions(block, exclude_written_from_reads=True)
    (region,) = [r for r in reads if r.buffer is a]
    assert isinstance(region.region[0].min, IntImm) and region.region[0].min.value == 0
    assert region.region[0].extent is n


def test_different_symbolic_accesses_cover_the_dimension():
    n, a, block = _block_reading_prefix()
    m = tir.Var("m", "int32")
    k = tir.Var("k2", "int32")
    second = tir.For(k, 0, m, tir.ForKind.SERIAL, tir.Evaluate(tir.BufferLoad(a, [k])))
    block = tir.Block([], [], [], "two", tir.SeqStmt([block.body, second]))
    reads, _ = block_access_regions(block)
    (region,) = [r for r in reads if r.buffer is a]
    assert region.region[0].extent.value == 16
    assert isinstance(region.region[0], Range)
