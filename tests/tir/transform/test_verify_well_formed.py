"""ember.tir.analysis.verify_well_formed: scoping and typing errors point at the node."""

import pytest
from tir_lower_builders import as_mod, block_elementwise_2d, func_of, loop, matmul_add

from ember.ir import const
from ember.tir import (
    Block, BlockRealize, BufferStore, For, ForKind, IterVar, LetStmt, Range, Var, decl_buffer, seq,
)
from ember.tir.analysis import WellFormedError, verify_well_formed


def test_well_formed_functions_pass():
    assert verify_well_formed(matmul_add())
    assert verify_well_formed(as_mod(block_elementwise_2d()))


def test_undefined_var_is_reported_with_path():
    A = decl_buffer((4,), "float32", "A")
    i, ghost = Var("i"), Var("ghost")
    func = func_of([A], loop(i, 4, BufferStore(A, const(1.0), (i + ghost,))))
    with pytest.raises(WellFormedError, match=r"Var 'ghost' \(int32\) is used but not defined.*at For\(i\) > BufferStore\(A\)"):
        verify_well_formed(func)
    assert verify_well_formed(func, assert_mode=False) is False


def test_loop_var_out_of_scope():
    A = decl_buffer((4,), "float32", "A")
    i = Var("i")
    func = func_of([A], seq(loop(i, 4, BufferStore(A, const(1.0), (i,))), BufferStore(A, const(2.0), (i,))))
    with pytest.raises(WellFormedError, match="Var 'i' .* is used but not defined in this scope"):
        verify_well_formed(func)


def test_block_iter_var_used_outside_its_block():
    A = decl_buffer((4,), "float32", "A")
    i, vi = Var("i"), Var("vi")
    block = Block((IterVar(Range(0, 4), vi),), (), (), "blk", BufferStore(A, const(1.0), (vi,)))
    body = loop(i, 4, seq(BlockRealize((i,), const(True), block), BufferStore(A, const(0.0), (vi,))))
    with pytest.raises(WellFormedError, match="block iterator 'vi' of block 'blk' is used outside its block"):
        verify_well_formed(func_of([A], body))


def test_store_dtype_mismatch_and_index_count():
    A = decl_buffer((4, 4), "float32", "A")
    i = Var("i")
    func = func_of([A], loop(i, 4, BufferStore(A, const(1, "int32"), (i, i))))
    with pytest.raises(WellFormedError, match="BufferStore to 'A' expects a value of dtype float32, got int32"):
        verify_well_formed(func)
    func = func_of([A], loop(i, 4, BufferStore(A, const(1.0), (i,))))
    with pytest.raises(WellFormedError, match="buffer 'A' has 2 dimensions but is accessed with 1 indices"):
        verify_well_formed(func)


def test_loop_extent_must_be_integer():
    A = decl_buffer((4,), "float32", "A")
    i = Var("i")
    bad = For(i, const(0), const(4.0), ForKind.SERIAL, BufferStore(A, const(1.0), (i,)))
    with pytest.raises(WellFormedError, match="loop 'i' needs an integer extent, got float32"):
        verify_well_formed(func_of([A], bad))


def test_let_scoping_and_bad_argument():
    A = decl_buffer((4,), "float32", "A")
    x = Var("x")
    ok = func_of([A], LetStmt(x, const(1), BufferStore(A, const(1.0), (x,))))
    assert verify_well_formed(ok)
    with pytest.raises(TypeError, match="expected a PrimFunc or an IRModule for func_or_mod, got int"):
        verify_well_formed(3)
