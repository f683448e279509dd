"""Native argument checks of make_packed_api, reported through ember.runtime with clear messages."""

import re

import numpy as np
import pytest

import ember
from ember import runtime
from ember.ir import Var, const
from ember.runtime import ArgumentError
from ember.tir import BufferStore, For, ForKind, PrimFunc, decl_buffer

from codegen_helpers import elementwise


@pytest.fixture(scope="module")
def add():
    """C[i] = A[i] + B[i] over a symbolic n."""
    return ember.build(elementwise(lambda a, b: a + b, ["float32", "float32"], "float32", name="add"), target="llvm")


@pytest.fixture(scope="module")
def fixed_2d():
    """B[i, j] = A[i, j] * 2 over (3, 4)."""
    A = decl_buffer((3, 4), "float32", "A")
    B = decl_buffer((3, 4), "float32", "B")
    a, b = Var("A", "handle"), Var("B", "handle")
    i, j = Var("i"), Var("j")
    body = For(i, const(0), const(3), ForKind.SERIAL,
               For(j, const(0), const(4), ForKind.SERIAL, BufferStore(B, A[i, j] * 2.0, (i, j))))
    return ember.build(PrimFunc((a, b), body, buffer_map={a: A, b: B}, attrs={"global_symbol": "twice"}), target="llvm")


def _f32(*shape):
    return np.zeros(shape, "float32")


def test_fixed_2d_runs(fixed_2d):
    a = np.arange(12, dtype="float32").reshape(3, 4)
    b = _f32(3, 4)
    fixed_2d(a, b)
    np.testing.assert_array_equal(b, a * 2)


def test_argument_count(add):
    with pytest.raises(ArgumentError, match=re.escape("add expects 3 arguments (A0, A1, Out), got 2")):
        add(_f32(3), _f32(3))


def test_dtype(add):
    with pytest.raises(ArgumentError, match=re.escape("argument 'A1' (#2): expected dtype float32, got float64")):
        add(_f32(3), np.zeros(3), _f32(3))


def test_ndim(fixed_2d):
    with pytest.raises(ArgumentError, match=re.escape("argument 'A' (#1): expected ndim 2, got 1")):
        fixed_2d(_f32(12), _f32(3, 4))


def test_constant_shape(fixed_2d):
    with pytest.raises(ArgumentError, match=re.escape("argument 'B' (#2): expected shape[1] == 4, got 5")):
        fixed_2d(_f32(3, 4), _f32(3, 5))


def test_symbolic_shape_mismatch(add):
    with pytest.raises(ArgumentError, match=re.escape(
            "argument 'Out' (#3): expected shape[0] == 3 (symbolic n, bound by A0.shape[0]), got 4")):
        add(_f32(3), _f32(3), _f32(4))


def test_non_contiguous(fixed_2d):
    with pytest.raises(ArgumentError, match=r"argument 'A' \(#1\): expected a compact \(row-major contiguous\) array"):
        fixed_2d(_f32(3, 8)[:, ::2], _f32(3, 4))


def test_transposed_is_not_compact(fixed_2d):
    with pytest.raises(ArgumentError, match="compact"):
        fixed_2d(_f32(4, 3).T, _f32(3, 4))


def test_wrong_device(add):
    fake = runtime.NDArray(0x1000, (3,), "float32", runtime.cuda(0))  # a descriptor only, never read
    with pytest.raises(ArgumentError, match=re.escape("argument 'A0' (#1): expected a cpu array, got cuda(0)")):
        add(fake, _f32(3), _f32(3))


def test_wrong_python_type(add):
    with pytest.raises(ArgumentError, match="argument 'A0'"):
        add([1.0, 2.0], _f32(2), _f32(2))


def test_extent_one_dims_may_have_any_stride():
    A = decl_buffer((1, 4), "float32", "A")
    B = decl_buffer((1, 4), "float32", "B")
    a, b = Var("A", "handle"), Var("B", "handle")
    j = Var("j")
    body = For(j, const(0), const(4), ForKind.SERIAL, BufferStore(B, A[0, j] + 1.0, (0, j)))
    mod = ember.build(PrimFunc((a, b), body, buffer_map={a: A, b: B}), target="llvm")
    src = np.arange(8, dtype="float32").reshape(2, 4)[:1]  # shape (1, 4), row stride 4 elements
    out = _f32(1, 4)
    mod(src, out)
    np.testing.assert_array_equal(out, src + 1)


def test_scalar_parameters_int_and_float():
    n = Var("n", "int32")
    alpha = Var("alpha", "float32")
    A = decl_buffer((n,), "float32", "A")
    a = Var("A", "handle")
    i = Var("i")
    body = For(i, const(0), n, ForKind.SERIAL, BufferStore(A, A[i] * alpha, (i,)))
    mod = ember.build(PrimFunc((a, n, alpha), body, buffer_map={a: A}), target="llvm")
    x = np.arange(5, dtype="float32")
    mod(x, 5, 2.5)
    np.testing.assert_array_equal(x, np.arange(5) * 2.5)
    with pytest.raises(ArgumentError, match=re.escape("argument 'A' (#1): expected shape[0] == n")):
        mod(x, 4, 1.0)


def test_byte_offset_is_honoured():
    mod = ember.build(elementwise(lambda a: a + 1.0, ["float32"], "float32"), target="llvm")
    base = np.arange(10, dtype="float32")
    view = base[3:7]  # non-zero offset into the same allocation
    out = _f32(4)
    mod(view, out)
    np.testing.assert_array_equal(out, view + 1)


def test_function_info_lists_params_and_checks(add):
    info = add["add"].info
    assert [p.name for p in info.params] == ["A0", "A1", "Out"]
    assert info.params[0].shape == ("n",)
    assert info.params[0].dtype == "float32"
    assert any("non-NULL" in c for c in info.checks)


def _two_buffers(shape_b, shape_a):
    B = decl_buffer(shape_b, "float32", "B")
    A = decl_buffer(shape_a, "float32", "A")
    hb, ha = Var("B", "handle"), Var("A", "handle")
    return PrimFunc((hb, ha), BufferStore(A, B[0], (const(0),)), buffer_map={hb: B, ha: A})


def test_shape_expression_checked_after_its_vars_are_bound():
    n = Var("n")
    mod = ember.build(_two_buffers((n * 2,), (n,)), target="llvm")
    mod(_f32(6), _f32(3))
    # n is bound by A (#2) after B (#1) is read: the native check runs once n is known
    with pytest.raises(ArgumentError, match=re.escape("argument 'B' (#1): expected shape[0] == (n * 2)")):
        mod(_f32(5), _f32(3))


def test_shape_expression_with_an_unbindable_var():
    n = Var("n")
    with pytest.raises(ValueError, match="shape entry \\(n \\* 2\\) using 'n', which no parameter binds"):
        ember.build(_two_buffers((n * 2,), (4,)), target="llvm")


def test_handle_and_bool_and_uint_scalar_params():
    flag = Var("flag", "bool")
    big = Var("big", "uint64")
    ptr = Var("ptr", "handle")
    A = decl_buffer((2,), "uint64", "A")
    a = Var("A", "handle")
    from ember.ir import Cast, DataType, Select

    body = BufferStore(A, Select(flag, big, Cast(DataType("uint64"), ptr)), (const(0),))
    mod = ember.build(PrimFunc((a, flag, big, ptr), body, buffer_map={a: A}), target="llvm")
    out = np.zeros(2, "uint64")
    mod(out, True, 2**64 - 1, 1234)
    assert out[0] == 2**64 - 1
    mod(out, False, 5, 1234)
    assert out[0] == 1234
    assert [p.kind for p in mod["main"].info.params] == ["buffer", "int", "int", "handle"]
