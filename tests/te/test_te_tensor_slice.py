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
    assert call.args[0].value == "my_func" and call.args[1].op.name == "tir.tvm_stack_make_array"
    assert call.args[1].args[0] is A.data and call.args[1].args[3].value == 1
    assert tir.call_packed("f", A.data).args[1] is A.data


def test_multi_output_compute_gives_one_block_per_output():
    m = te.var("m")
    a0, a1 = te.placeholder((m,), name="a0"), te.placeholder((m,), name="a1")
    b0, b1 = te.compute((m,), lambda i: (a0[i] + 2.0, a1[i] * 3.0), name="B")
    func = te.create_prim_func([a0, a1, b0, b1])
    names = []
    tir.functor.post_order_visit(func.body, lambda n: names.append(n.name_hint) if isinstance(n, tir.Block) else None)
    assert names == ["B.v0", "B.v1", "root"]


def test_producer_load_is_a_tir_node():
    A = te.placeholder((4,), name="A")
    B = te.compute((), lambda: 2.0, name="B")
    load = tir.expr.ProducerLoad(B, [])
    assert isinstance(A[0], tir.expr.ProducerLoad) and load.dtype == B.dtype and load.indices == ()
