"""get_block_access_region / get_block_read_write_region: regions of known buffers, and
opaque uses of a buffer's data (whole buffer; access pointers by their mask)."""

from ember import tir
from ember.ir import structural_equal
from ember.script import tir as T


@T.prim_func
def opaque_and_plain(a: T.handle):
    A = T.alloc_buffer((16,), "float32")
    B = T.alloc_buffer((16,), "float32")
    C = T.alloc_buffer((16,), "float32")
    D = T.alloc_buffer((16,), "float32")
    with T.block("b"):
        T.reads(A[0:8])
        T.writes(B[0:8])
        for i in range(8):
            B[i] = A[i] + 1.0
        T.evaluate(C.data)
        T.evaluate(D.access_ptr("r"))


def _block_and_map():
    root = opaque_and_plain.body.block
    block = root.body.block
    return block, {buf.data: buf for buf in root.alloc_buffers}, root.alloc_buffers


def test_access_region_separates_opaque_uses():
    block, vmap, (A, B, C, D) = _block_and_map()
    reads, writes, opaque = tir.analysis.get_block_access_region(block, vmap)
    assert structural_equal(list(block.reads), reads) and structural_equal(list(block.writes), writes)
    assert [r.buffer for r in opaque] == [C, D]
    assert all(structural_equal(r.region[0].extent, tir.const(16)) for r in opaque)


def test_read_write_region_folds_opaque_uses_by_kind():
    block, vmap, (A, B, C, D) = _block_and_map()
    reads, writes = tir.analysis.get_block_read_write_region(block, vmap)
    assert [r.buffer for r in reads] == [A, C, D]  # C: both ways; D: read through "r"
    assert [w.buffer for w in writes] == [B, C]


def test_unknown_buffers_are_left_out():
    block, vmap, (A, B, C, D) = _block_and_map()
    reads, writes, opaque = tir.analysis.get_block_access_region(block, {C.data: C})
    assert reads == [] and writes == [] and [r.buffer for r in opaque] == [C]


@T.prim_func
def opaque_match_buffers():
    B = T.alloc_buffer((32, 32), "float32")
    for i in range(2):
        with T.block("blk"):
            vi = T.axis.spatial(2, i)
            B0 = T.match_buffer(B[vi * 16 + 2:vi * 16 + 6, 0:4], (4, 4))
            B1 = T.match_buffer(B[vi * 16 + 8:vi * 16 + 12, 4:12], (4, 8))
            T.reads([])
            T.writes([])
            T.evaluate(B0.data)
            T.evaluate(B1.data)


def test_opaque_use_of_match_buffers_unites_their_regions():
    root = opaque_match_buffers.body.block
    block = root.body.body.block
    (B,) = root.alloc_buffers
    _, _, opaque = tir.analysis.get_block_access_region(block, {B.data: B})
    (region,) = opaque
    assert region.buffer is B
    assert [int(r.extent) for r in region.region] == [10, 12]
    assert int(region.region[1].min) == 0
