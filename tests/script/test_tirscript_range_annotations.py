"""``range(start, stop, annotations={...})`` in TVMScript: a serial loop with annotations."""

import pytest

from ember import tir
from ember.script import tir as T


def test_range_with_annotations():
    @T.prim_func
    def annotated(A: T.Buffer((16,), "float32")):
        for i in range(0, 16, annotations={"pragma_x": 1}):
            A[i] = T.float32(0)

    loop = annotated.body
    assert isinstance(loop, tir.For) and loop.kind == tir.ForKind.SERIAL
    assert dict(loop.annotations) == {"pragma_x": 1}


def test_range_rejects_other_keywords():
    from ember.script.errors import ParserError

    with pytest.raises(ParserError, match="takes 1 or 2 arguments"):
        @T.prim_func
        def bad(A: T.Buffer((16,), "float32")):
            for i in range(0, 16, step=2):
                A[i] = T.float32(0)
