"""verify_well_formed's scoping rules: no nested or repeated let-definitions of a Var, no Var
shared between the functions of a module, a Var used after its scope is named as such,
a block with iterators may not use the loop Vars around it, buffer_bind_scope defines
its buffer."""

import pytest

from ember import tir
from ember.ir import IRModule
from ember.tir.analysis import verify_well_formed


def _func(body, params=()):
    return tir.PrimFunc(list(params), body)


def test_nested_and_repeated_let_bindings_are_refused():
    i = tir.Var("i", "int32")
    nested = tir.LetStmt(i, 42, tir.LetStmt(i, 42, tir.Evaluate(i)))
    with pytest.raises(ValueError, match="multiple nested definitions of variable i"):
        verify_well_formed(_func(nested))
    repeated = tir.SeqStmt([tir.LetStmt(i, 42, tir.Evaluate(i)), tir.LetStmt(i, 17, tir.Evaluate(i))])
    with pytest.raises(ValueError, match="multiple definitions of variable i"):
        verify_well_formed(_func(repeated))


def test_use_after_scope_is_named():
    i = tir.Var("i", "int32")
    body = tir.SeqStmt([tir.LetStmt(i, 42, tir.Evaluate(i)), tir.Evaluate(i)])
    with pytest.raises(ValueError, match="Invalid use of undefined variable i at .* no longer in-scope"):
        verify_well_formed(_func(body))


def test_functions_of_a_module_do_not_share_vars():
    i = tir.Var("i", "int32")
    f = _func(tir.LetStmt(i, 42, tir.Evaluate(i)))
    g = _func(tir.LetStmt(i, 42, tir.Evaluate(i)))
    with pytest.raises(ValueError, match="multiple definitions of variable i"):
        verify_well_formed(IRModule({"f": f, "g": g}))
    assert verify_well_formed(IRModule({"f": f}))


def test_block_with_iterators_may_not_use_outer_loop_vars():
    A = tir.decl_buffer((8,), "float32", "A")
    i = tir.Var("i", "int32")
    vi = tir.IterVar(tir.Range(0, 8), tir.Var("vi", "int32"), tir.IterVar.DataPar)

    def func(index):
        block = tir.Block([vi], [], [], "b", tir.BufferStore(A, tir.const(1.0, "float32"), [index]))
        realize = tir.BlockRealize([i], True, block)
        loop = tir.For(i, 0, 8, tir.ForKind.SERIAL, realize)
        root = tir.BlockRealize([], True, tir.Block([], [], [], "root", loop))
        return tir.PrimFunc([A.data], root, buffer_map={A.data: A})

    assert verify_well_formed(func(vi.var))
    assert not verify_well_formed(func(i), assert_mode=False)
    with pytest.raises(ValueError, match="loop variable i is used inside block 'b'"):
        verify_well_formed(func(i))


def test_buffer_bind_scope_defines_the_view():
    A = tir.decl_buffer((16,), "float32", "A")
    n = tir.Var("n", "int32")
    view = tir.decl_buffer((n,), "float32", "V")
    store = tir.BufferStore(view, tir.const(0.0, "float32"), [0])
    attr = tir.AttrStmt([view, A], "buffer_bind_scope", tir.const(0), store)
    assert verify_well_formed(tir.PrimFunc([A.data], attr, buffer_map={A.data: A}))


def test_buffer_realize_defines_a_new_buffer():
    A = tir.decl_buffer((16,), "int32", "A")
    store = tir.BufferStore(A, tir.const(1, "int32"), [0])
    realize = tir.BufferRealize(A, [tir.Range(0, 16)], True, store)
    assert verify_well_formed(tir.PrimFunc([], realize))
    with pytest.raises(ValueError, match="buffer 'A' is used"):
        verify_well_formed(tir.PrimFunc([], tir.SeqStmt([realize, store])))
