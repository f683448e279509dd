"""Cache stages copy only elements that exist: a declared region reaching outside its
buffer (a padding block reads ``A[h - 1, w - 1]`` under a guard) is clipped (constant
regions) or guarded by a predicate on the copy block (symbolic regions)."""

import numpy as np
import pytest
from sched_helpers import check
from sched_workloads import conv2d

from ember.tir import Schedule


def _conv2d_numpy(a, w):
    n, c, h, wd = a.shape
    f, _, kh, kw = w.shape
    pad = np.zeros((n, c, h + 2, wd + 2), a.dtype)
    pad[:, :, 1:h + 1, 1:wd + 1] = a
    out = np.zeros((n, f, h, wd), np.float64)
    for ry in range(kh):
        for rx in range(kw):
            out += np.einsum("nchw,fc->nfhw", pad[:, :, ry:ry + h, rx:rx + wd], w[:, :, ry, rx])
    return out.astype(a.dtype)


def _conv_args(func, seed=0):
    rng = np.random.default_rng(seed)
    shapes = [tuple(int(s) for s in func.buffer_map[p].shape) for p in func.params]
    return [rng.standard_normal(s).astype("float32") for s in shapes]


def _check_against_numpy(func, compiled=False):
    from ember.tir.interpreter import run

    a, w, o = _conv_args(func)
    if compiled:
        import ember

        lib = ember.build(func, target="llvm")
        out = ember.nd.array(o)
        lib(ember.nd.array(a), ember.nd.array(w), out)
        o = out.numpy()
    else:
        run(func, a, w, o)
    np.testing.assert_allclose(o, _conv2d_numpy(a, w), rtol=1e-5, atol=1e-5)


def _blockized_padding(outer: bool):
    """conv2d whose padding block Apad is blockized at its innermost loop (``outer``:
    at its outermost loop), as the property test found it."""
    original = conv2d(1, 2, 4, 4, 2, 3, 3)
    sch = Schedule(original, seed=0)
    block = sch.get_block("Apad")
    loops = sch.get_loops(block)
    sch.split(loops[3], [None, 1])
    sch.blockize(sch.get_loops(block)[0 if outer else 4])
    return original, sch


def _stage_realize(func, name):
    from ember.tir.schedule.analysis import find_block

    return find_block(func, name)


def test_cache_read_of_guarded_padding_read_stays_in_bounds():
    original, sch = _blockized_padding(outer=False)
    sch.cache_read(sch.get_block("Apad"), 0, "local")
    func = sch.mod["main"]
    stage = _stage_realize(func, "A_local")
    assert "T.where" in func.script()  # the copy skips A[-1, ...] and A[4, ...]
    assert stage.predicate is not None
    _check_against_numpy(func)
    check(sch, original)


def test_cache_read_of_guarded_padding_read_compiles():
    _, sch = _blockized_padding(outer=False)
    sch.cache_read(sch.get_block("Apad"), 0, "local")
    _check_against_numpy(sch.mod["main"], compiled=True)


def test_cache_read_clips_a_constant_region_to_the_buffer():
    original, sch = _blockized_padding(outer=True)
    # Apad_o reads A[0:1, 0:2, -1:5, -1:5]: the cache holds A's 4x4 plane, not 6x6
    sch.cache_read(sch.get_block("Apad"), 0, "local")
    func = sch.mod["main"]
    cache = next(b for r in [_stage_realize(func, "Apad_o")] for b in r.block.alloc_buffers)
    assert [int(s) for s in cache.shape] == [1, 2, 4, 4]
    assert "T.where" not in func.script()
    _check_against_numpy(func)
    check(sch, original)


@pytest.mark.parametrize("outer", [False, True])
def test_cache_write_after_blockized_padding_matches_numpy(outer):
    original, sch = _blockized_padding(outer)
    sch.cache_write(sch.get_block("Apad"), 0, "local")
    _check_against_numpy(sch.mod["main"])
    check(sch, original)


def test_symbolic_in_bounds_region_gets_no_predicate():
    """A region provably inside the buffer (here over a symbolic extent) stays unguarded."""
    from ember.script import tir as T

    @T.prim_func
    def blocked(a: T.handle, b: T.handle, n: T.int32):
        A = T.match_buffer(a, ((n + 7) // 8 * 8,))
        B = T.match_buffer(b, ((n + 7) // 8 * 8,))
        for i0 in range((n + 7) // 8):
            with T.block("outer"):
                vo = T.axis.spatial((n + 7) // 8, i0)
                T.reads(A[vo * 8:vo * 8 + 8])
                T.writes(B[vo * 8:vo * 8 + 8])
                for i1 in range(8):
                    with T.block("inner"):
                        vi = T.axis.spatial(8, i1)
                        B[vo * 8 + vi] = A[vo * 8 + vi] * T.float32(2)

    sch = Schedule(blocked)
    sch.cache_read(sch.get_block("inner"), 0, "local")
    assert "T.where" not in sch.mod["main"].script()
