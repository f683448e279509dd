"""HoistInvariantDivision: a division by a symbolic value is bound once per iteration of
the innermost loop it varies in, not recomputed in the loops below."""

import numpy as np
import pytest

import ember as tvm
from ember import te, tir
from ember.tir import For, LetStmt
from ember.tir.functor import collect
from ember.tir.transform import lower_for_codegen
from ember.tir.transform.hoist_invariant_division import hoist_invariant_division

pytest.importorskip("ember.arith")


def _rows_fused(transposed: bool):
    """B[i, j, k] = A[i, j, k] * 2 (or A[j, i, k] * 2) over rows i, j fused into one loop of
    symbolic extent.  Transposed, A's row offset is not ``f * m`` (its digits swap places), so
    its divisions stay and are hoisted."""
    n, m = te.var("n", "int64"), te.var("m", "int64")
    A = te.placeholder((n, n, n) if transposed else (n, m, m), name="A")
    shape = (n, n, n) if transposed else (n, m, m)
    B = te.compute(shape, lambda i, j, k: (A[j, i, k] if transposed else A[i, j, k]) * 2.0, name="B")
    sch = tir.Schedule(te.create_prim_func([A, B]))
    i, j, k = sch.get_loops(sch.get_block("B"))
    sch.fuse(i, j)
    return sch.mod


def _divisions_under(stmt):
    from ember.ir import FloorDiv, FloorMod, IntImm

    return [d for d in collect(stmt, lambda x: isinstance(x, FloorDiv | FloorMod)) if not isinstance(d.b, IntImm)]


def test_row_index_bound_once_per_row():
    func = lower_for_codegen(_rows_fused(transposed=True), tvm.target.Target("llvm"))["main"]
    (row,) = [f for f in collect(func.body, lambda x: isinstance(x, For)) if "fused" in f.loop_var.name]
    lets = [s for s in collect(row.body, lambda x: isinstance(x, LetStmt)) if s.var.name.startswith("hoisted")]
    assert lets, "the row's base index should be bound under the row loop"
    inner = [f for f in collect(row.body, lambda x: isinstance(x, For))]
    assert inner and all(not _divisions_under(f.body) for f in inner)


def test_division_by_a_constant_or_by_the_inner_loop_stays():
    n = tir.Var("n", "int64")
    A = tir.decl_buffer((n,), "float32", "A")
    i, j = tir.Var("i", "int64"), tir.Var("j", "int64")
    from tir_lower_builders import func_of, loop

    body = loop(i, n, loop(j, n, tir.BufferStore(A, tir.const(1.0, "float32"), ((i // 4) * 0 + j // (j + 1),))))
    func = func_of([n, A], body)
    assert hoist_invariant_division(func) is func


def test_results_unchanged():
    mod = _rows_fused(transposed=False)
    kernel = tvm.build(mod, target="llvm")
    for n, m in [(1, 1), (2, 3), (3, 17), (2, 40)]:
        a = np.random.default_rng(n * m).standard_normal((n, m, m)).astype("float32")
        out = tvm.nd.array(np.zeros_like(a))
        kernel(tvm.nd.array(a), out)
        np.testing.assert_array_equal(out.numpy(), a * 2)


def test_division_of_let_expression_variables_stays_under_the_let():
    """x // y where x and y are bound by Let expressions inside the loop: hoisting it would
    read them before they are bound (the codegen refused the unbound variable)."""
    n = tir.Var("n", "int32")
    A = tir.decl_buffer((n,), "int32", "A")
    B = tir.decl_buffer((n,), "int32", "B")
    C = tir.decl_buffer((n,), "int32", "C")
    i, x, y = tir.Var("i", "int32"), tir.Var("x", "int32"), tir.Var("y", "int32")
    from tir_lower_builders import func_of, loop

    value = tir.Let(x, tir.BufferLoad(A, (i,)), tir.Let(y, tir.BufferLoad(B, (i,)), x // y))
    func = func_of([n, A, B, C], loop(i, n, tir.BufferStore(C, value, (i,))))
    assert hoist_invariant_division(func) is func
    kernel = tvm.build(func, target="llvm")
    a = np.arange(-10, 10, dtype="int32")
    b = np.array([3, -4, 5, 7] * 5, dtype="int32")
    out = tvm.nd.array(np.zeros(20, "int32"))
    kernel(20, tvm.nd.array(a), tvm.nd.array(b), out)
    np.testing.assert_array_equal(out.numpy(), a // b)


def _qkv_permute():
    """(b, s, 3*4*32) → (3, b, 4, s, 32), as BERT's qkv reshape + transpose, default schedule:
    rows of s serial under the fused parallel (3, b, 4); the source offset mixes a division
    of the fused index with the row index."""
    from ember import dlight, topi

    b, s = te.var("b", "int64"), te.var("s", "int64")
    i64 = lambda v: tir.const(v, "int64")  # noqa: E731
    x = te.placeholder((b, s, i64(384)), name="x")
    y = topi.transpose(topi.reshape(x, (b, s, i64(3), i64(4), i64(32))), (2, 0, 3, 1, 4))
    mod = tvm.IRModule({"main": te.create_prim_func([x, y])})
    with tvm.target.Target("llvm"):
        return dlight.ApplyDefaultSchedule(dlight.cpu.Elementwise())(mod)


def test_division_of_the_outer_index_is_split_from_the_row_index():
    func = lower_for_codegen(_qkv_permute(), tvm.target.Target("llvm"))["main"]
    loops = collect(func.body, lambda x: isinstance(x, For))
    rows = [f for f in loops if f.kind != tir.ForKind.PARALLEL and "ax3" in f.loop_var.name]
    assert rows, [f.loop_var.name for f in loops]
    assert all(not _divisions_under(f) for f in rows)
    kernel = tvm.build(_qkv_permute(), target="llvm")
    rng = np.random.default_rng(11)
    for b, s in [(1, 5), (2, 3)]:
        a = rng.standard_normal((b, s, 384)).astype("float32")
        out = tvm.nd.array(np.zeros((3, b, 4, s, 32), "float32"))
        kernel(tvm.nd.array(a), out)
        np.testing.assert_array_equal(out.numpy(), a.reshape(b, s, 3, 4, 32).transpose(2, 0, 3, 1, 4))
