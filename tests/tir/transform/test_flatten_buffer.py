"""FlattenBuffer: N-d accesses become 1-D accesses of flat buffers sharing the data Var."""

import pytest
from tir_lower_builders import assert_same_results, func_of, loop, matmul_add

from ember.ir import assert_structural_equal, const
from ember.tir import Allocate, BufferStore, DeclBuffer, Var, decl_buffer
from ember.tir import transform as T
from ember.tir.buffer import BufferLoad
from ember.tir.functor import collect


def _copy_2d(strides=None, elem_offset=None):
    A = decl_buffer((4, 8), "float32", "A", strides=strides, elem_offset=elem_offset)
    B = decl_buffer((4, 8), "float32", "B")
    i, j = Var("i"), Var("j")
    func = func_of([A, B], loop(i, 4, loop(j, 8, BufferStore(B, A[i, j] + const(1.0), (i, j)))))
    return A, B, i, j, func


def test_flatten_row_major():
    A, B, i, j, func = _copy_2d()
    after = T.flatten_buffer(func)
    fa = decl_buffer((32,), "float32", "A", data=A.data)
    fb = decl_buffer((32,), "float32", "B", data=B.data)
    expected = func_of([A, B], loop(i, 4, loop(j, 8, BufferStore(fb, fa[i * 8 + j] + const(1.0), (i * 8 + j,)))))
    assert_structural_equal(after, expected)
    assert after.buffer_map == func.buffer_map  # parameter buffers stay N-d


def test_flat_buffers_share_data_var_and_are_reused():
    A, B, i, j, func = _copy_2d()
    after = T.flatten_buffer(func)
    loads = collect(after.body, lambda n: isinstance(n, BufferLoad))
    stores = collect(after.body, lambda n: isinstance(n, BufferStore))
    assert loads[0].buffer.data is A.data and loads[0].buffer.shape[0].value == 32
    assert stores[0].buffer.data is B.data


def test_flatten_strided_buffer_uses_strides_and_offset():
    _, _, _, _, func = _copy_2d(strides=(16, 1), elem_offset=3)
    after = T.flatten_buffer(func)
    load = collect(after.body, lambda n: isinstance(n, BufferLoad))[0]
    assert load.buffer.shape[0].value == 4 * 16  # whole rows of the outer stride, as TVM
    i, j = after.body.loop_var, after.body.body.loop_var
    assert_structural_equal(load.indices[0], i * 16 + j * 1 + 3)


def test_flatten_allocate_and_drop_decl_buffer():
    T0 = decl_buffer((2, 3), "float32", "T0")
    body = Allocate(T0.data, T0.dtype, T0.shape, const(True), DeclBuffer(T0, BufferStore(T0, const(1.0), (const(1), const(2)))))
    after = T.flatten_buffer(func_of([], body))
    flat = decl_buffer((6,), "float32", "T0", data=T0.data)
    expected = Allocate(T0.data, T0.dtype, (const(6),), const(True), BufferStore(flat, const(1.0), (const(5),)))
    assert_structural_equal(after.body, expected)


def test_flatten_preserves_matmul_results():
    func = T.lower_opaque_block(T.convert_blocks_to_opaque(T.lower_init_block(matmul_add())))
    after = T.flatten_buffer(func)
    assert all(len(n.buffer.shape) == 1 for n in collect(after.body, lambda n: isinstance(n, BufferLoad | BufferStore)))
    assert_same_results(func, after)


def test_flatten_symbolic_shape():
    n = Var("n")
    A = decl_buffer((n, 4), "float32", "A")
    i, j = Var("i"), Var("j")
    func = func_of([n, A], loop(i, n, loop(j, 4, BufferStore(A, const(2.0), (i, j)))))
    after = T.flatten_buffer(func)
    store = collect(after.body, lambda x: isinstance(x, BufferStore))[0]
    assert_structural_equal(store.buffer.shape[0], n * 4, map_free_vars=False)


def test_flatten_refuses_axis_separators():
    A = decl_buffer((4, 4), "float32", "A", axis_separators=(1,))
    i = Var("i")
    func = func_of([A], loop(i, 4, BufferStore(A, const(0.0), (i, i))))
    with pytest.raises(ValueError, match="buffer 'A' has axis_separators \\(1,\\); expected none"):
        T.flatten_buffer(func)


def test_access_with_wrong_index_count_is_refused():
    """An access with fewer indices than dimensions must not be flattened into a wild one."""
    import pytest

    import ember
    from ember import tir as _tir
    from ember.ir import replace as _replace

    buf = _tir.decl_buffer((4, 4), "float32", name="C")
    handle = _tir.Var("C_handle", "handle")
    func = _tir.PrimFunc((handle,), _tir.BufferStore(buf, 1.0, [0]), None, {handle: buf})
    func = _replace(func, attrs={"global_symbol": "bad"})
    with pytest.raises(ValueError, match="2 dimensions but is accessed with 1 indices"):
        ember.build(func, "llvm")
