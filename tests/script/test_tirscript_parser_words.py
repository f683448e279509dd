"""Smaller TVMScript words and forms: string strides, T.boolean, tvm_struct_get's dtype=,
and an explicit root block without child blocks."""

from ember.ir import assert_structural_equal
from ember.script import from_source
from ember.script import tir as T
from ember.tir.stmt import BlockRealize


def test_string_strides_make_named_stride_vars():
    text = '''@T.prim_func
def f(a: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), strides=("A_s0",))
    A[0] = T.float32(1)
'''
    f = from_source(text)
    (stride,) = f.buffer_map[f.params[0]].strides
    assert stride.name == "A_s0" and str(stride.dtype) == "int32"


def test_boolean_is_bool_and_struct_get_takes_dtype_keyword():
    assert T.boolean is T.bool
    call = T.tvm_struct_get(T.handle(), 0, 12, dtype="handle")
    assert str(call.dtype) == "handle" and len(call.args) == 3


def test_explicit_root_block_without_children_round_trips():
    text = '''@T.prim_func
def f(A: T.Buffer((1,), "int32")):
    with T.block("root"):
        A[0] = 0
'''
    f = from_source(text)
    assert isinstance(f.body, BlockRealize)
    printed = f.script()
    assert 'with T.block("root"):' in printed and "# with" not in printed
    assert_structural_equal(from_source(printed), f)
