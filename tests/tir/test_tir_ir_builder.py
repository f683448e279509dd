"""tvm.tir.ir_builder: imperative construction of TIR, checked by structure and by running it."""

import numpy as np
import pytest

import ember as tvm
from ember import te, tir


def test_nested_scopes_build_the_expected_statement():
    ib = tir.ir_builder.create()
    n = te.var("n")
    A = ib.pointer("float32", name="A")
    with ib.for_range(0, n, "i") as i:
        with ib.if_scope(ib.likely(i > 0)):
            A[i] = A[i - 1] + 1.0
        with ib.else_scope():
            A[i] = 0.0
    stmt = ib.get()
    assert isinstance(stmt, tir.For) and stmt.loop_var.name == "i"
    branch = stmt.body
    assert isinstance(branch, tir.IfThenElse) and branch.condition.op.name == "tir.likely"
    assert isinstance(branch.else_case, tir.BufferStore)


def test_anonymous_loops_are_named_i_j_k():
    ib = tir.ir_builder.create()
    with ib.for_range(0, 2) as a:
        with ib.for_range(0, 2) as b:
            with ib.for_range(0, 2) as c:
                ib.emit(tir.call_extern("int32", "f", a, b, c))
    assert [a.name, b.name, c.name] == ["i", "j", "k"]


def test_scope_attr_and_allocate_wrap_what_follows():
    ib = tir.ir_builder.create()
    ib.scope_attr(tir.const(0, "int32"), "pragma_x", 1)
    buf = ib.allocate("float32", 4, name="tmp")
    buf[0] = 1.0
    ib.emit(tir.call_extern("int32", "use", buf.data))
    stmt = ib.get()
    assert isinstance(stmt, tir.AttrStmt) and stmt.attr_key == "pragma_x"
    assert isinstance(stmt.body, tir.Allocate) and isinstance(stmt.body.body, tir.SeqStmt)


def test_else_scope_needs_an_if_scope():
    ib = tir.ir_builder.create()
    with pytest.raises(RuntimeError, match="must directly follow an if_scope"):
        ib.else_scope()


def test_built_function_runs():
    ib = tir.ir_builder.create()
    n = 8
    A = tir.decl_buffer((n,), "float32", "A")
    B = tir.decl_buffer((n,), "float32", "B")
    a, b = ib.buffer_ptr(A), ib.buffer_ptr(B)
    with ib.for_range(0, n, "i") as i:
        with ib.if_scope(i % 2 == 0):
            b[i] = a[i] * 2.0
        with ib.else_scope():
            b[i] = a[i]
    pa, pb = tir.Var("pa", "handle"), tir.Var("pb", "handle")
    func = tir.PrimFunc([pa, pb], ib.get(), buffer_map={pa: A, pb: B})
    x = np.arange(n, dtype="float32")
    y = np.zeros(n, dtype="float32")
    tvm.build(func, target="llvm")(x, y)
    np.testing.assert_allclose(y, np.where(np.arange(n) % 2 == 0, x * 2, x))
