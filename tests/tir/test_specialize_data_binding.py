"""PrimFunc.specialize of a data pointer to an expression (T.address_of): the Var stays and
a LetStmt binds it around its buffer's declaration; T.Ptr[T.float32] annotates such a Var."""

from ember.ir import assert_structural_equal
from ember.script import tir as T
from ember.tir.stmt import LetStmt
from ember.tir import address_of


@T.prim_func(private=True)
def two_views(A_data: T.handle("float32"), B_data: T.handle("float32")):
    A_buf = T.decl_buffer(32, "float32", data=A_data)
    B_buf = T.decl_buffer(16, "float32", data=B_data)
    for i in range(16):
        B_buf[i] = A_buf[i] * 2.0


@T.prim_func(private=True)
def upper_half_view(A_data: T.handle("float32")):
    A_buf = T.decl_buffer(32, "float32", data=A_data)
    B_data: T.Ptr[T.float32] = T.address_of(A_buf[16])
    B_buf = T.decl_buffer(16, "float32", data=B_data)
    for i in range(16):
        B_buf[i] = A_buf[i] * 2.0


def test_data_pointer_bound_to_an_address_is_let_bound():
    A_buf = two_views.body.buffer
    after = two_views.specialize({two_views.params[1]: address_of(A_buf[16])})
    assert len(after.params) == 1
    assert isinstance(after.body.body, LetStmt) and after.body.body.var is two_views.params[1]
    assert_structural_equal(after, upper_half_view)


def test_ptr_annotation_is_a_typed_handle():
    let = upper_half_view.body.body
    assert let.var.dtype == "handle" and str(let.var.type_annotation.element_type.dtype) == "float32"
