"""Region inference of ember.tir.analysis.block_access (used by the parser for T.reads/T.writes)."""

from ember import tir
from ember.ir import Var, const
from ember.script import tir as T
from ember.tir.analysis.block_access import block_access_regions, complete_block_access


def _block(func, name):
    return tir.collect(func.body, lambda n: isinstance(n, tir.Block) and n.name_hint == name)[0]


def _text(regions):
    return [repr(r) for r in regions]


@T.prim_func
def access_patterns(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32"),
                    C: T.Buffer((16, 16), "float32")):
    for i in range(16):
        with T.block("row_sum"):
            vi = T.axis.spatial(16, i)
            for k in range(16):  # a loop inside the block is relaxed over its domain
                B[vi] = B[vi] + A[vi, k]
    for i in range(14):
        with T.block("stencil"):
            vi = T.axis.spatial(14, i)
            C[vi + 1, 0] = A[vi, 0] + A[vi + 1, 0] + A[vi + 2, 0]
    for i in range(4):
        with T.block("tiles"):
            vi = T.axis.spatial(4, i)
            for j in range(4):
                C[vi * 4 + j, vi % 2] = A[(vi * 4 + j) // 2, vi] + A[vi * vi, j % 3]
    for i in range(16):
        with T.block("outer"):
            vi = T.axis.spatial(16, i)
            Tmp = T.alloc_buffer((16,))
            for j in range(16):
                with T.block("inner"):
                    vj = T.axis.spatial(16, j)
                    Tmp[vj] = A[vi, vj]
            B[vi] = Tmp[0]


def test_inner_loop_is_relaxed_and_iterators_kept():
    reads, writes = block_access_regions(_block(access_patterns, "row_sum"))
    assert _text(reads) == ["B[vi]", "A[vi, 0:16]"]
    assert _text(writes) == ["B[vi]"]


def test_constant_offsets_unite_into_a_covering_range():
    reads, writes = block_access_regions(_block(access_patterns, "stencil"))
    assert _text(reads) == ["A[vi:vi + 3, 0]"]
    assert _text(writes) == ["C[vi + 1, 0]"]


def test_affine_relaxation_and_whole_dimension_fallback():
    reads, writes = block_access_regions(_block(access_patterns, "tiles"))
    # vi*4 + j for j in [0, 4) → [vi*4, vi*4 + 4); (vi*4 + j)//2 → [vi*4//2, (vi*4 + 3)//2];
    # the product vi*vi and j % 3 differ in base from the first access → whole dimension
    assert _text(writes) == ["C[vi * 4:vi * 4 + 4, vi % 2]"]
    assert _text(reads) == ["A[0:16, 0:16]"]


def test_nested_blocks_and_local_allocations():
    reads, writes = block_access_regions(_block(access_patterns, "outer"))
    assert _text(reads) == ["A[vi, 0:16]"]  # Tmp is allocated inside: left out
    assert _text(writes) == ["B[vi]"]


def test_exclude_written_from_reads_and_complete():
    blk = _block(access_patterns, "row_sum")
    reads, _ = block_access_regions(blk, exclude_written_from_reads=True)
    assert _text(reads) == ["A[vi, 0:16]"]
    stripped = tir.Block(blk.iter_vars, (), (), blk.name_hint, blk.body)
    done = complete_block_access(stripped)
    assert _text(done.reads) == ["B[vi]", "A[vi, 0:16]"] and _text(done.writes) == ["B[vi]"]


def test_match_buffer_accesses_count_as_source_region():
    A = tir.decl_buffer((8, 8), "float32", "A")
    sub = tir.decl_buffer((4,), "float32", "sub")
    vi = Var("vi")
    source = tir.BufferRegion(A, (tir.Range(vi, 1), tir.Range(const(2), const(4))))
    body = tir.BufferStore(sub, const(0.0), (const(1),))
    blk = tir.Block((), (), (), "m", body, match_buffers=(tir.MatchBufferRegion(sub, source),))
    _, writes = block_access_regions(blk)
    assert _text(writes) == ["A[vi, 2:6]"]


def test_symbolic_loop_extent_covers_the_dimension():
    n = Var("n")
    A = tir.decl_buffer((n,), "float32", "A")
    k = Var("k")
    body = tir.For(k, const(0), n, tir.ForKind.SERIAL, tir.BufferStore(A, const(0.0), (k,)))
    _, writes = block_access_regions(tir.Block((), (), (), "b", body))
    assert _text(writes) == ["A[0:n]"]
