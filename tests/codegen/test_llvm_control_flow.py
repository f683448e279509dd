"""Statements: LetStmt, IfThenElse, While, AssertStmt, Allocate (stack and heap), and the
errors for IR the code generator refuses."""

import re

import numpy as np
import pytest

import ember
from ember.codegen.llvm import CodegenError, build_llvm
from ember.ir import IRModule, PointerType, StringImm, Var, const
from ember.target import Target
from ember.tir import (
    Allocate, AssertStmt, Block, BlockRealize, BufferStore, For, ForKind, IfThenElse, IterVar, LetStmt,
    PrimFunc, While, decl_buffer, seq,
)

I32 = "int32"


def _func(params_buffers, body, name="main"):
    handles = [Var(b.name, "handle") for b in params_buffers]
    return PrimFunc(tuple(handles), body, buffer_map=dict(zip(handles, params_buffers)), attrs={"global_symbol": name})


def _direct(func):
    return build_llvm(IRModule({"main": func}), Target("llvm"))


def test_let_and_if_then_else():
    n = Var("n", I32)
    A = decl_buffer((n,), "int32", "A")
    i, t = Var("i"), Var("t")
    body = For(i, const(0), n, ForKind.SERIAL,
               LetStmt(t, i * 3, IfThenElse(t % 2 == 0, BufferStore(A, t, (i,)), BufferStore(A, -t, (i,)))))
    mod = ember.build(_func([A], body), target="llvm")
    out = np.zeros(9, "int32")
    mod(out)
    expected = np.arange(9) * 3
    np.testing.assert_array_equal(out, np.where(expected % 2 == 0, expected, -expected))


def test_while_loop_with_scratch_memory():
    A = decl_buffer((1,), "int32", "A")
    counter = Var("counter", "handle", PointerType(ember.DataType("int32")))
    C = decl_buffer((1,), "int32", "C", data=counter)
    body = Allocate(counter, ember.DataType("int32"), (const(1),), const(True), seq(
        BufferStore(C, const(1), (const(0),)),
        While(C[0] < 1000, BufferStore(C, C[0] * 3, (const(0),))),
        BufferStore(A, C[0], (const(0),)),
    ))
    mod = ember.build(_func([A], body), target="llvm")
    out = np.zeros(1, "int32")
    mod(out)
    assert out[0] == 2187


def test_assert_stmt_returns_its_message():
    n = Var("n", I32)
    A = decl_buffer((n,), "float32", "A")
    body = AssertStmt(n > 2, StringImm("need at least 3 elements"), BufferStore(A, const(7.0, "float32"), (const(2),)))
    mod = ember.build(_func([A], body, name="needs3"), target="llvm")
    out = np.zeros(3, "float32")
    mod(out)
    assert out[2] == 7
    with pytest.raises(ember.runtime.ArgumentError, match="need at least 3 elements"):
        mod(np.zeros(2, "float32"))


@pytest.mark.parametrize("size", [64, 100_000])
def test_allocate_stack_and_heap(size):
    """A temporary of ``size`` floats: small ones live on the stack, large ones on the heap."""
    A = decl_buffer((size,), "float32", "A")
    B = decl_buffer((size,), "float32", "B")
    tmp = Var("tmp", "handle", PointerType(ember.DataType("float32")))
    T = decl_buffer((size,), "float32", "T", data=tmp)
    i, j = Var("i"), Var("j")
    body = Allocate(tmp, ember.DataType("float32"), (const(size),), const(True), seq(
        For(i, const(0), const(size), ForKind.SERIAL, BufferStore(T, A[i] * 2.0, (i,))),
        For(j, const(0), const(size), ForKind.SERIAL, BufferStore(B, T[size - 1 - j], (j,))),
    ))
    mod = _direct(_func([A, B], body))
    src = mod.get_source("ll-unopt")
    assert ("alloca [64 x float]" in src) == (size == 64)
    assert ("aligned_alloc" in src) == (size != 64)
    a = np.random.default_rng(0).standard_normal(size).astype("float32")
    b = np.zeros_like(a)
    mod(a, b)
    np.testing.assert_array_equal(b, (a * 2)[::-1])


def test_symbolic_allocate_uses_the_heap():
    n = Var("n", I32)
    A = decl_buffer((n,), "int32", "A")
    tmp = Var("tmp", "handle", PointerType(ember.DataType("int32")))
    T = decl_buffer((n,), "int32", "T", data=tmp)
    i = Var("i")
    body = Allocate(tmp, ember.DataType("int32"), (n,), const(True), seq(
        For(i, const(0), n, ForKind.SERIAL, BufferStore(T, i + 1, (i,))),
        For(i, const(0), n, ForKind.SERIAL, BufferStore(A, T[i] * T[i], (i,))),
    ))
    mod = _direct(_func([A], body))
    out = np.zeros(1000, "int32")
    mod(out)
    np.testing.assert_array_equal(out, (np.arange(1000) + 1) ** 2)


def test_unrolled_loop_and_int64_loop_var():
    A = decl_buffer((6,), "int64", "A")
    i = Var("i", "int64")
    body = For(i, const(0, "int64"), const(6, "int64"), ForKind.UNROLLED, BufferStore(A, i * i, (i,)))
    mod = _direct(_func([A], body))
    out = np.zeros(6, "int64")
    mod(out)
    np.testing.assert_array_equal(out, np.arange(6) ** 2)


def test_block_is_refused_naming_the_pass():
    A = decl_buffer((4,), "float32", "A")
    block = Block((), (), (), "compute", BufferStore(A, const(1.0, "float32"), (const(0),)))
    func = _func([A], BlockRealize((), const(True), block))
    with pytest.raises(CodegenError, match=re.escape("it should have been removed by tir.transform.LowerOpaqueBlock")):
        _direct(func)


def test_thread_binding_is_refused_on_cpu():
    A = decl_buffer((4,), "float32", "A")
    i = Var("i")
    loop = For(i, const(0), const(4), ForKind.THREAD_BINDING, BufferStore(A, const(1.0, "float32"), (i,)),
               thread_binding=IterVar(None, Var("threadIdx.x"), thread_tag="threadIdx.x"))
    with pytest.raises(CodegenError, match="bound to a GPU thread axis"):
        _direct(_func([A], loop))


def test_unbound_variable_is_refused():
    A = decl_buffer((4,), "int32", "A")
    ghost = Var("ghost")
    with pytest.raises(CodegenError, match="variable 'ghost' .* is used but never bound"):
        _direct(_func([A], BufferStore(A, ghost, (const(0),))))


def test_unknown_intrinsic_names_the_lowering_pass():
    from ember.ir import Call, DataType, Op

    A = decl_buffer((4,), "int32", "A")
    call = Call(DataType("int32"), Op.get("tir.tvm_storage_sync"), ())
    with pytest.raises(CodegenError, match="tvm_storage_sync.*ThreadSync"):
        _direct(_func([A], BufferStore(A, call, (const(0),))))


def test_sources():
    A = decl_buffer((4,), "float32", "A")
    mod = _direct(_func([A], BufferStore(A, const(1.0, "float32"), (const(0),)), name="one"))
    assert re.search(r'define .*i32 @"?__ember_fn_one"?\(', mod.get_source())
    assert "noalias" in mod.get_source("ll-unopt")
    assert mod.get_source("ll") == mod.get_source()
    assert "one_compute_" in mod.get_source("ll-unopt")
    assert "one:" in mod.get_source("asm")
    with pytest.raises(ValueError, match=re.escape("get_source(fmt='cu'): expected one of 'll', 'll-unopt', 'asm'")):
        mod.get_source("cu")


def test_reused_let_var_does_not_leak_into_an_outlined_parallel_body():
    n = Var("n", I32)
    A = decl_buffer((n,), "int32", "A")
    t, i = Var("t"), Var("i")
    body = seq(
        IfThenElse(n > 100, LetStmt(t, n * 2, BufferStore(A, t, (const(0),)))),
        For(i, const(0), n, ForKind.PARALLEL, LetStmt(t, i + 5, BufferStore(A, t, (i,)))),
    )
    mod = ember.build(_func([A], body), target="llvm")
    out = np.zeros(10, "int32")
    mod(out)
    np.testing.assert_array_equal(out, np.arange(10) + 5)
