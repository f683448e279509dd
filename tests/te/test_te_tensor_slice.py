"""te details TVM code relies on: A[i][j] through a TensorSlice, reduce_axis((0, n)) with
extent n itself, tir.call_packed naming the function and passing buffers' data."""

from ember import te, tir


def test_tensor_slice_collects_indices():
    n = te.size_var("n")
    A = te.compute((n, n, 4), lambda i, j, k: i + j + k)
    s = A[0]
    assert isinstance(s, te.tensor.TensorSlice) and s.dtype == A.dtype
    load = A[0][1][2]
    assert load.astype("float16").dtype == "float16"
    B = te.compute((n,), lambda i: A[0][i][1] + A[0, i, 1])
    assert B.shape[0] is n


def test_reduce_axis_from_zero_keeps_the_extent():
    n = te.var("n")
    k = te.reduce_axis((0, n), "k")
    assert k.dom.extent is n
    k2 = te.reduce_axis((2, n), "k2")
    assert str(k2.dom.extent) == "n - 2"


def test_call_packed():
    A = tir.decl_buffer((4,), "float32", "A")
    call = tir.call_packed("my_func", A, tir.const(3))
    assert call.op.name == "tir.tvm_call_packed" and call.dtype == "int32"
    assert call.args[0].value == "my_func" and call.args[1] is A.data
