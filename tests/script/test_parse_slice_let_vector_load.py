"""TVMScript: a buffer slice bound to a vector-typed let is a vector load (``x: T.uint8x4 = A[0:4]``)."""

from ember import tir
from ember.ir import Ramp
from ember.script import tir as T


def test_slice_let_is_a_ramp_load():
    @T.prim_func
    def f(A: T.Buffer((8,), "uint8"), B: T.Buffer((8,), "uint8")):
        x: T.uint8x4 = A[0:4]
        B[4:8] = x

    let = f.body
    assert isinstance(let, tir.LetStmt)
    assert isinstance(let.value, tir.BufferLoad)
    (index,) = let.value.indices
    assert isinstance(index, Ramp) and int(index.lanes) == 4 and int(index.base) == 0
    assert str(let.value.dtype) == "uint8x4"
