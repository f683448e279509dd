"""Simplify's statement rules: self-stores vanish, trivial lets are inlined, thread extents
bound their indices, and a condition reading memory is not assumed in its branches."""

import ember as tvm
from ember import te, tir
from ember.script import tir as T


def _simplify(func):
    return tvm.tir.transform.Simplify()(tvm.IRModule({"main": func}))["main"]


def test_self_store_removed():
    @T.prim_func
    def self_store(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i + 0] = A[i]

    assert isinstance(_simplify(self_store).body.body, tir.Evaluate)


def test_constant_let_inlined_and_bounds_used():
    ib = tir.ir_builder.create()
    A, C = ib.pointer("float32", name="A"), ib.pointer("float32", name="C")
    n = te.size_var("n")
    with ib.for_range(0, n, name="i") as i:
        with ib.if_scope(i < 12):
            A[i] = C[i]
    func = tir.PrimFunc([A.data, C.data, n], tir.LetStmt(n, 10, ib.get()))
    body = _simplify(func).body
    assert isinstance(body, tir.For) and body.extent.value == 10
    assert isinstance(body.body, tir.BufferStore)


def test_thread_extent_bounds_the_thread_index():
    ib = tir.ir_builder.create()
    A = ib.pointer("float32", name="A")
    tx = te.thread_axis("threadIdx.x")
    ib.scope_attr(tx, "thread_extent", 10)
    with ib.if_scope(tx < 12):
        A[tx] = 1.0
    body = _simplify(tir.PrimFunc([A.data], ib.get())).body
    assert isinstance(body.body, tir.BufferStore)


def test_let_used_by_a_buffer_shape_is_kept():
    @T.prim_func(check_well_formed=False)
    def strided(A_ptr: T.handle("float32"), A_stride: T.int32):
        stride = A_stride
        A = T.decl_buffer(1, "float32", strides=[stride], data=A_ptr)
        A[0] = T.float32(42)

    func = _simplify(strided)
    assert tvm.tir.collect(func.body, lambda x: isinstance(x, tir.LetStmt)) or \
        "decl_buffer" in func.script()


def test_condition_on_memory_not_assumed_after_a_store():
    @T.prim_func
    def altered(A: T.Buffer((1,), "int32"), n: T.int32):
        if A[0] == n:
            A[0] = A[0] + 1
            if A[0] == n:
                A[0] = 0

    after = _simplify(altered)
    assert len(tvm.tir.collect(after.body, lambda x: isinstance(x, tir.IfThenElse))) == 2


def test_flat_extent_of_strided_buffer_covers_whole_rows():
    from ember.tir.transform.flatten_buffer import flat_buffer_of

    rows = tir.decl_buffer((4, 16), "float32", "B", strides=[17, 1])
    assert flat_buffer_of(rows).shape[0].value == 68  # 4 rows of 17, as TVM
    column_major = tir.decl_buffer((4, 16), "float32", "C", strides=[1, 4])
    assert flat_buffer_of(column_major).shape[0].value == 64  # 1 + 3*1 + 15*4: rows would be 4
