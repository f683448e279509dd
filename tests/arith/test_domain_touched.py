"""DomainTouched: per-dimension ranges of a buffer read or written under loops."""

from ember.arith._ffi_api import DomainTouched
from ember.script import tir as T


@T.prim_func
def shifted_stencil(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (100, 50))
    B = T.match_buffer(b, (100, 50))
    for i, j in T.grid(100, 50):
        A[i, j] = B[i - 1, j + 1] + A[i - 1, j - 1]


def _bounds(ranges):
    return [(r.min.value, r.extent.value) for r in ranges]


def test_reads_writes_and_both():
    a, b = (shifted_stencil.buffer_map[p] for p in shifted_stencil.params)
    body = shifted_stencil.body
    assert _bounds(DomainTouched(body, a, True, False)) == [(-1, 100), (-1, 50)]
    assert _bounds(DomainTouched(body, a, False, True)) == [(0, 100), (0, 50)]
    assert _bounds(DomainTouched(body, a, True, True)) == [(-1, 101), (-1, 51)]
    assert _bounds(DomainTouched(body, b, True, False)) == [(-1, 100), (1, 50)]
    assert DomainTouched(body, b, False, True) == []
