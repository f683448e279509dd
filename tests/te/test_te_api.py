"""te construction: tensors, computes, reducers and their error messages."""

import numpy as np
import pytest
from te_eval import evaluate

import ember
from ember import te, tir
from ember.ir import FloatImm, IntImm, Var


def test_placeholder_properties():
    A = te.placeholder((3, 4), dtype="float16", name="A")
    assert A.ndim == 2 and str(A.dtype) == "float16" and A.name == "A"
    assert [int(s) for s in A.shape] == [3, 4]
    assert isinstance(A.op, te.PlaceholderOp)
    assert A == A.op.output(0) and hash(A) == hash(A.op.output(0))


def test_indexing_builds_producer_load():
    A = te.placeholder((3, 4), name="A")
    i = te.var("i")
    load = A[i, 2]
    assert isinstance(load, te.ProducerLoad) and load.producer == A
    assert load.indices[0] is i and isinstance(load.indices[1], IntImm)
    assert str((load + 1.0).dtype) == "float32"
    assert te.TensorLoad is te.ProducerLoad


def test_wrong_number_of_indices():
    A = te.placeholder((3, 4), name="A")
    with pytest.raises(IndexError, match=r"tensor 'A' has 2 dimension\(s\) \(3, 4\) but was indexed with 1"):
        A(0)  # A[0] is a TensorSlice (TVM's A[i][j]); a call needs every index


def test_float_index_rejected():
    A = te.placeholder((3,), name="A")
    with pytest.raises(TypeError, match="index 0 must be a scalar integer, got float32"):
        A[1.5]


def test_slice_index_rejected():
    A = te.placeholder((3,), name="A")
    with pytest.raises(TypeError, match="index 0 is a slice"):
        A[0:2]


def test_compute_names_axes_after_arguments():
    A = te.placeholder((3, 4), name="A")
    B = te.compute((3, 4), lambda row, col: A[row, col] * 2.0, name="B", tag="scale")
    assert [iv.var.name for iv in B.op.axis] == ["row", "col"]
    assert B.op.tag == "scale" and B.op.input_tensors == [A]
    C = te.compute((3, 4), lambda *i: A[i] + 1.0)
    assert [iv.var.name for iv in C.op.axis] == ["i0", "i1"]
    assert C.op.name == "compute"


def test_compute_arity_mismatch():
    A = te.placeholder((3, 4), name="A")
    with pytest.raises(ValueError, match=r"fcompute takes 1 argument\(s\) \(i\) but the shape has 2 dimension"):
        te.compute((3, 4), lambda i: A[i, 0], name="B")


def test_compute_returning_tensor_is_an_error():
    A = te.placeholder((3,), name="A")
    with pytest.raises(TypeError, match="fcompute returned the tensor 'A'"):
        te.compute((3,), lambda i: A, name="B")


def test_nested_reduce_is_an_error():
    A = te.placeholder((3, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(ValueError, match="reductions are only allowed at the top level"):
        te.compute((3,), lambda i: te.sum(A[i, k], axis=k) + 1.0, name="B")


def test_invalid_compute_bodies_raise_a_tvm_error():
    A = te.placeholder((3, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    k2 = te.reduce_axis((0, 3), name="k2")
    bodies = [
        lambda i: A[i, 0] * (te.sum(A[i, k], axis=k) + 1.0),
        lambda i: (te.sum(A[i, k], axis=k), te.sum(A[i, k2], axis=k2)),
    ]
    for body in bodies:
        with pytest.raises(ember.TVMError) as info:
            te.compute((3,), body, name="B")
        assert isinstance(info.value, te.ComputeError) and isinstance(info.value, ValueError)
    te.compute((3,), lambda i: te.sum(A[i, k], axis=k), name="B")


def test_mixed_reduce_outputs_is_an_error():
    A = te.placeholder((3, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(ValueError, match="either every output or none must be a reduction"):
        te.compute((3,), lambda i: (te.sum(A[i, k], axis=k), A[i, 0]), name="B")


def test_reduce_axis_must_come_from_reduce_axis():
    A = te.placeholder((3, 4), name="A")
    with pytest.raises(TypeError, match="combines values of one dtype, got float32 and int32"):
        te.compute((3,), lambda i: te.sum(A[i, 0], axis=i), name="B")
    j = te.var("j")
    with pytest.raises(TypeError, match="axis\\[1\\] of a reduction must be made by te.reduce_axis"):
        te.compute((3,), lambda i: te.sum(A[i, 0], axis=[te.reduce_axis((0, 2)), j]), name="B")


def test_reduce_axis_domains():
    k = te.reduce_axis((2, 7), name="k")
    assert int(k.dom.min) == 2 and int(k.dom.extent) == 5 and k.iter_type == tir.IterVarType.CommReduce
    r = te.reduce_axis(tir.Range(0, 3), name="r")
    assert int(r.dom.extent) == 3
    assert isinstance(k + 1, tir.Add) and k.var.name == "k"


def test_var_and_size_var():
    n = te.var("n")
    m = te.size_var("m", "int64")
    assert isinstance(n, Var) and str(n.dtype) == "int32"
    assert isinstance(m, tir.SizeVar) and str(m.dtype) == "int64"


def test_intrinsics_reexported():
    x = te.var("x", "float32")
    for name in ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "floor", "ceil", "round",
                 "trunc", "isnan", "abs"):
        assert getattr(te, name)(x) is not None
    assert te.pow(x, 2.0).dtype == x.dtype and te.fmod(x, 2.0).dtype == x.dtype
    assert isinstance(te.const(1.5, "float32"), FloatImm)
    assert te.if_then_else(x > 0, x, 0.0).dtype == x.dtype


def test_multi_output_compute():
    A = te.placeholder((4,), name="A")
    B, C = te.compute((4,), lambda i: (A[i] + 1.0, A[i] * 2.0), name="two")
    assert B.op is C.op and B.value_index == 0 and C.value_index == 1
    assert B.op.outputs == [B, C] and B.op.num_outputs == 2
    assert B.name == "two_v0" and C.name == "two_v1"
    a = np.arange(4, dtype="float32")
    b, c = evaluate([A], [B, C], [a])
    np.testing.assert_allclose(b, a + 1)
    np.testing.assert_allclose(c, a * 2)


def test_tensor_arithmetic_uses_topi():
    A = te.placeholder((2, 3), name="A")
    B = te.placeholder((3,), name="B")
    C = A + B
    assert C.op.name == "T_add"
    a = np.random.rand(2, 3).astype("float32")
    b = np.random.rand(3).astype("float32")
    np.testing.assert_allclose(evaluate([A, B], C, [a, b]), a + b, rtol=1e-6)
    np.testing.assert_allclose(evaluate([A], 2.0 * A - 1.0, [a]), 2 * a - 1, rtol=1e-6)


def test_comm_reducer_argmax_tuple():
    A = te.placeholder((3, 5), name="A", dtype="float32")

    def fcombine(x, y):
        lhs = te.if_then_else(x[1] >= y[1], x[0], y[0])
        rhs = te.if_then_else(x[1] >= y[1], x[1], y[1])
        return lhs, rhs

    def fidentity(t0, t1):
        return te.const(-1, t0), te.min_value(t1)

    argmax = te.comm_reducer(fcombine, fidentity, name="argmax")
    k = te.reduce_axis((0, 5), name="k")
    idx, val = te.compute((3,), lambda i: argmax((k.var, A[i, k]), axis=k), name="T")
    a = np.random.rand(3, 5).astype("float32")
    got_i, got_v = evaluate([A], [idx, val], [a])
    np.testing.assert_array_equal(got_i, a.argmax(axis=1))
    np.testing.assert_allclose(got_v, a.max(axis=1))


def test_comm_reducer_arity_error():
    with pytest.raises(TypeError, match="fcombine must take 2 arguments"):
        te.comm_reducer(lambda x: x, lambda t: 0)


def test_reduce_where_and_init():
    A = te.placeholder((4, 6), name="A")
    k = te.reduce_axis((0, 6), name="k")
    B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k, where=k < 3), name="B")
    C = te.compute((4,), lambda i: te.max(A[i, k], axis=k, init=te.const(10.0)), name="C")
    a = np.random.rand(4, 6).astype("float32")
    b, c = evaluate([A], [B, C], [a])
    np.testing.assert_allclose(b, a[:, :3].sum(axis=1), rtol=1e-6)
    np.testing.assert_allclose(c, np.full(4, 10.0))


def test_reduce_axis_with_offset():
    A = te.placeholder((8,), name="A")
    k = te.reduce_axis((2, 6), name="k")
    B = te.compute((1,), lambda i: te.sum(A[k], axis=k), name="B")
    a = np.arange(8, dtype="float32")
    np.testing.assert_allclose(evaluate([A], B, [a]), [a[2:6].sum()])


def test_min_reduction_and_integer_sum():
    A = te.placeholder((3, 4), name="A", dtype="int32")
    k = te.reduce_axis((0, 4), name="k")
    B = te.compute((3,), lambda i: te.min(A[i, k], axis=k), name="B")
    C = te.compute((3,), lambda i: te.sum(A[i, k], axis=k), name="C")
    a = np.random.randint(-50, 50, size=(3, 4)).astype("int32")
    b, c = evaluate([A], [B, C], [a])
    np.testing.assert_array_equal(b, a.min(axis=1))
    np.testing.assert_array_equal(c, a.sum(axis=1))


def test_thread_axis():
    tx = te.thread_axis("threadIdx.x")
    assert tx.thread_tag == "threadIdx.x" and tx.iter_type == tir.IterVarType.ThreadIndex
    with pytest.raises(ValueError, match="a tag such as 'threadIdx.x' is required"):
        te.thread_axis()


def test_placeholder_bad_shape():
    with pytest.raises(TypeError, match=r"placeholder 'A': shape\[1\] must be an integer, got float32"):
        te.placeholder((3, 2.5), name="A")
    with pytest.raises(ValueError, match=r"shape\[0\] must be non-negative, got -1"):
        te.placeholder((-1,), name="A")


def test_tensor_equality():
    A = te.placeholder((3,), name="A")
    B = te.placeholder((3,), name="B")
    assert A == A.op.output(0) and A != B and not (A == B)
    assert A != None  # noqa: E711 - comparing with None must not build an expression
    assert len({A, A.op.output(0), B}) == 2
    eq = A == 1.0
    assert isinstance(eq, te.Tensor) and eq.op.name == "T_equal"


def test_reducers_combine_values_directly():
    x = te.var("x", "float32")
    assert isinstance(te.max(x, te.const(0.0)), tir.Max)
    assert isinstance(te.min(x, 1.0, 2.0), tir.Min)
    assert isinstance(te.sum(x, x), tir.Add)
    A = te.placeholder((4,), name="A")
    R = te.compute((4,), lambda i: te.max(A[i], te.const(0, A.dtype)), name="relu")
    a = np.array([-1, 2, -3, 4], "float32")
    np.testing.assert_array_equal(evaluate([A], R, [a]), np.maximum(a, 0))


def test_reduce_axis_outside_reduction_is_an_error():
    A = te.placeholder((3, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(ValueError, match="the reduce axis 'k' is used outside a reduction over it"):
        te.compute((3,), lambda i: A[i, k], name="B")
    r = te.reduce_axis((0, 3), name="r")
    with pytest.raises(ValueError, match="the reduce axis 'r' is used outside a reduction over it"):
        te.compute((3,), lambda i: te.sum(A[r, k], axis=k), name="C")
