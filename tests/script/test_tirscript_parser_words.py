"""Smaller TVMScript words and forms: string strides, T.boolean, tvm_struct_get's dtype=,
and an explicit root block without child blocks."""

import pytest

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
    call = T.tvm_struct_get(T.handle(), 0, 12, "handle")  # the dtype is not taken for an argument
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


REALIZE = '''@T.prim_func(check_well_formed=False)
def f(A: T.Buffer((16,), "float32")):
    B = T.Buffer((16,))
    with T.realize(B[0:16], "global"):
        for i in range(16):
            B[i] = A[i]
'''


def _needs_buffer_realize():
    import ember.tir.stmt

    if not hasattr(ember.tir.stmt, "BufferRealize"):
        pytest.skip("tir.BufferRealize is not in this tree yet")


def test_realize_builds_attr_over_buffer_realize_and_round_trips():
    _needs_buffer_realize()
    from ember.tir.stmt import AttrStmt, BufferRealize

    f = from_source(REALIZE)
    assert isinstance(f.body, AttrStmt) and f.body.attr_key == "realize_scope"
    assert isinstance(f.body.body, BufferRealize) and f.body.body.buffer is f.body.node
    text = f.script()
    assert 'T.realize(B[0:16], "global")' in text
    assert_structural_equal(from_source(text, check_well_formed=False), f)


def test_ir_builder_realize_matches_the_parser():
    _needs_buffer_realize()
    from ember.script.ir_builder import IRBuilder
    from ember.script.ir_builder import tir as IB
    from ember.tir import decl_buffer

    buf = decl_buffer((16,), "float32", name="B")
    with IRBuilder() as ib:
        with IB.realize(buf[0:16], "global"):
            IB.evaluate(0)
    stmt = ib.get()
    assert stmt.script() == 'with T.realize(B[0:16], "global"):\n    T.evaluate(0)'


def test_return_prints_and_parses_as_tir_ret():
    text = '''@T.prim_func
def f(a: T.int32) -> T.int32:
    return a + 1
'''
    f = from_source(text)
    printed = f.script()
    assert printed.endswith("    return a + 1")
    assert_structural_equal(from_source(printed), f)


def test_loop_targets_may_be_a_list_name_or_starred():
    starred = '''@T.prim_func
def f(A: T.Buffer((4, 4, 8), "int32"), B: T.Buffer((4, 4), "int32")):
    for *outer, r in T.grid(4, 4, 8):
        with T.block("reduce"):
            with T.init():
                B[outer] = 0
            B[outer] = B[outer] + A[(*outer, r)]
'''
    plain = '''@T.prim_func
def f(A: T.Buffer((4, 4, 8), "int32"), B: T.Buffer((4, 4), "int32")):
    for i, j, k in T.grid(4, 4, 8):
        with T.block("reduce"):
            with T.init():
                B[i, j] = 0
            B[i, j] = B[i, j] + A[i, j, k]
'''
    assert_structural_equal(from_source(starred), from_source(plain))
    whole = '''@T.prim_func
def f(A: T.Buffer((4, 4), "int32")):
    for idx in T.grid(*A.shape):
        A[idx] = 1
'''
    f = from_source(whole)
    assert len(f.body.body.body.indices) == 2


def test_private_function_cannot_set_global_symbol():
    from ember.script import ParserError

    text = '''@T.prim_func(private=True)
def f():
    T.func_attr({"global_symbol": "f"})
    T.evaluate(0)
'''
    with pytest.raises(ParserError, match="cannot set a global_symbol"):
        from_source(text)


def test_prefetch_parses_prints_and_builds():
    from ember.script.ir_builder import IRBuilder
    from ember.script.ir_builder import tir as IB
    from ember.tir.stmt import Prefetch

    text = '''@T.prim_func
def f(A: T.Buffer((128, 128), "float16")):
    T.prefetch(A, [T.Range(0, 64), T.Range(0, 64)])
'''
    f = from_source(text)
    assert isinstance(f.body, Prefetch) and len(f.body.bounds) == 2
    assert "    T.prefetch(A, [T.Range(0, 64), T.Range(0, 64)])" in f.script()
    assert_structural_equal(from_source(f.script()), f)
    with IRBuilder() as ib:
        IB.prefetch(f.buffer_map[f.params[0]], [])
    assert isinstance(ib.get(), Prefetch)
