"""Buffer slices used as values (``A[0:4] + B[0:4]``): vector loads and stores, printed back
as slices."""

import numpy as np
import pytest

import ember
from ember.ir import Broadcast, Ramp, assert_structural_equal
from ember.script import ParserError, from_source

SLICES = '''@T.prim_func
def f(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    B[0:4] = A[0:4] + B[4:8]
    B[4:8] = -A[0:4]
    B[8:10] = T.float32(1)
'''


def test_slices_parse_as_ramp_loads_and_stores():
    f = from_source(SLICES)
    store = f.body.seq[0]
    assert isinstance(store.indices[0], Ramp) and store.indices[0].lanes == 4
    assert isinstance(f.body.seq[2].value, Broadcast)  # a scalar stored to a slice is broadcast
    text = f.script()
    assert "B[0:4] = A[0:4] + B[4:8]" in text and "B[8:10] = T.Broadcast(T.float32(1.0), 2)" in text
    assert_structural_equal(from_source(text), f)


def test_slices_compute_what_numpy_does():
    f = from_source(SLICES)
    mod = ember.build(f, target="llvm")
    a = np.arange(10, dtype="float32")
    b = np.arange(10, 20, dtype="float32")
    A, B = ember.nd.array(a), ember.nd.array(b)
    mod(A, B)
    expected = b.copy()
    expected[0:4] = a[0:4] + b[4:8]
    expected[4:8] = -a[0:4]
    expected[8:10] = 1
    np.testing.assert_allclose(B.numpy(), expected)


def test_symbolic_slice_as_value_is_refused():
    text = '''@T.prim_func
def f(A: T.Buffer((10,), "float32"), n: T.int32):
    A[0] = A[0:n] + A[0]
'''
    with pytest.raises(ParserError, match="symbolic length"):
        from_source(text)


def test_slices_as_operator_arguments_are_vector_loads():
    text = '''@T.prim_func
def f(C: T.Buffer((10,), "uint32")):
    C[0:5] = T.shift_right(C[0:5], T.Broadcast(T.uint32(4), 5))
'''
    f = from_source(text)
    (arg, _) = f.body.value.args
    assert isinstance(arg.indices[0], Ramp) and arg.indices[0].lanes == 5
    assert_structural_equal(from_source(f.script()), f)


def test_strided_slices_are_strided_ramps_and_print_back():
    text = '''@T.prim_func
def f(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(2):
        B[i * 32:i * 32 + 32:4] = A[i * 32:i * 32 + 32:4] + T.Broadcast(T.float32(1), 8)
'''
    f = from_source(text)
    index = f.body.body.indices[0]
    assert isinstance(index, Ramp) and index.lanes == 8 and index.stride.value == 4
    printed = f.script()
    assert "B[i * 32:i * 32 + 32:4] = A[i * 32:i * 32 + 32:4]" in printed
    assert_structural_equal(from_source(printed), f)


def test_explicit_root_over_a_lone_block_stays_explicit():
    text = '''@T.prim_func
def f(A: T.Buffer((1,), "int32")):
    with T.block("root"):
        with T.block("inner"):
            A[0] = 0
'''
    f = from_source(text)
    assert f.body.block.name_hint == "root" and f.body.block.body.block.name_hint == "inner"
    assert_structural_equal(from_source(f.script()), f)
