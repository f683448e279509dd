"""te.extern_primfunc: a PrimFunc as a TE operation (reads are inputs, writes outputs,
an in-place-only function outputs its last updated buffer), built and run against numpy."""

import numpy as np
import pytest

import ember
from ember import te
from ember.script import tir as T


@T.prim_func
def scale_add(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("c"):
            vi = T.axis.spatial(8, i)
            C[vi] = A[vi] * T.float32(2) + B[vi]


@T.prim_func
def bump(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("a"):
            vi = T.axis.spatial(4, i)
            A[vi] = A[vi] + T.float32(1)


def test_reads_are_inputs_writes_outputs():
    a, b = te.placeholder((8,), name="a"), te.placeholder((8,), name="b")
    c = te.extern_primfunc([a, b], scale_add)
    func = te.create_prim_func([a, b, c])
    mod = ember.build(func, target="llvm")
    x, y = np.random.rand(8).astype("float32"), np.random.rand(8).astype("float32")
    out = ember.nd.array(np.zeros(8, "float32"))
    mod(ember.nd.array(x), ember.nd.array(y), out)
    np.testing.assert_allclose(out.numpy(), 2 * x + y, rtol=1e-6)


def test_in_place_only_function_outputs_its_buffer():
    c = te.extern_primfunc([], bump)
    assert c.op.output_placeholders[0] is bump.buffer_map[bump.params[0]]


def test_wrong_number_of_inputs_is_refused():
    with pytest.raises(ValueError, match="has 2 inputs"):
        te.extern_primfunc([te.placeholder((8,), name="a")], scale_add)
