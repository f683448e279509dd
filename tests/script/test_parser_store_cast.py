"""TVMScript: storing a value of another scalar type casts it to the buffer's dtype (as TVM)."""

import numpy as np

from ember.script import tir as T
from ember.tir import Cast
from ember.tir.stmt import BufferStore
from ember.tir.schedule.analysis import walk


@T.prim_func
def int_into_float(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("A"):
            vi = T.axis.spatial(4, i)
            A[vi] = vi + 1


def test_store_of_int_into_float_buffer_is_cast():
    stores = [s for s in walk(int_into_float.body) if isinstance(s, BufferStore)]
    assert len(stores) == 1
    assert isinstance(stores[0].value, Cast) and str(stores[0].value.dtype) == "float32"


def test_cast_store_runs():
    import ember

    a = np.zeros(4, "float32")
    mod = ember.build(int_into_float, target="llvm")
    arr = ember.nd.array(a)
    mod(arr)
    np.testing.assert_allclose(arr.numpy(), [1, 2, 3, 4])
