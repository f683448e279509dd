"""tir.layout / tir.bijective_layout: TVM's data-layout API over ember's layout parser."""

import pytest

from ember import tir


def _ints(xs):
    return tuple(int(x) for x in xs)


def test_layout_queries():
    lay = tir.layout("NCHW16c")
    assert isinstance(lay, tir.Layout)
    assert (lay.factor_of("c"), lay.factor_of("C"), lay.factor_of("N")) == (16, 16, -1)
    assert (lay.index_of("C"), lay.index_of("c"), lay.index_of("O")) == (1, 4, -1)
    assert "c" in lay and "O" not in lay
    assert (lay[0], lay[4], lay[-1]) == ("N", "c", "c")
    with pytest.raises(TypeError, match="integer type"):
        tir.layout("NCHW", dtype="float32")


def test_bijective_layout_converts_shapes_and_indices():
    assert tir.bijective_layout("NCHW", "ABCD") is None
    assert tir.bijective_layout("__undef__", "NCHW") is None and tir.bijective_layout("", "NCHW") is None
    bl = tir.bijective_layout("NCHW", "NCHW16c")
    assert _ints(bl.forward_shape((1, 32, 7, 7))) == (1, 2, 7, 7, 16)
    assert _ints(bl.backward_shape(bl.forward_shape((1, 32, 7, 7)))) == (1, 32, 7, 7)
    assert _ints(bl.forward_index([0, 18, 6, 6])) == (0, 1, 6, 6, 2)
    assert _ints(bl.backward_index([0, 1, 6, 6, 2])) == (0, 18, 6, 6)
