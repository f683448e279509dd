"""RemoveNoOp and Simplify (the latter only when ember.arith.Analyzer exists)."""

import pytest
from tir_lower_builders import func_of, loop

from ember.ir import assert_structural_equal, const
from ember.tir import (
    Allocate, BufferStore, Evaluate, IfThenElse, LetStmt, SeqStmt, Var, decl_buffer, seq,
)
from ember.tir import transform as T


def test_remove_no_op_cases():
    A = decl_buffer((8,), "float32", "A")
    i, j, x = Var("i"), Var("j"), Var("x")
    keep = BufferStore(A, const(1.0), (i,))
    body = loop(i, 8, seq(
        Evaluate(const(0)),
        keep,
        loop(j, 0, BufferStore(A, const(2.0), (j,))),
        loop(j, 4, Evaluate(const(1))),
        IfThenElse(const(True), BufferStore(A, const(3.0), (i,)), keep),
        IfThenElse(i < 3, Evaluate(const(0)), Evaluate(const(0))),
        BufferStore(A, A[i], (i,)),
        LetStmt(x, i + 1, Evaluate(const(0))),
        Allocate(Var("t", "handle"), A.dtype, (const(4),), const(True), Evaluate(const(0))),
    ))
    after = T.remove_no_op(func_of([A], body))
    expected = func_of([A], loop(i, 8, SeqStmt((keep, BufferStore(A, const(3.0), (i,))))))
    assert_structural_equal(after, expected)


def test_remove_no_op_empties_whole_body():
    A = decl_buffer((8,), "float32", "A")
    i = Var("i")
    after = T.remove_no_op(func_of([A], loop(i, 8, Evaluate(const(0)))))
    assert isinstance(after.body, Evaluate)


def test_simplify_is_identity_without_arith_or_folds_bounds():
    A = decl_buffer((8,), "float32", "A")
    i = Var("i")
    func = func_of([A], loop(i, 8, IfThenElse(i < 8, BufferStore(A, const(1.0), (i + 0,)))))
    after = T.simplify(func)
    try:
        from ember.arith import Analyzer  # noqa: F401
    except ImportError:
        assert after is func
        pytest.skip("ember.arith.Analyzer not available yet: Simplify is a no-op")
    assert isinstance(after.body.body, BufferStore)
    assert after.body.body.indices[0] is i


def test_simplify_renames_a_loop_var_reused_by_two_loops():
    pytest.importorskip("ember.arith")
    A = decl_buffer((8,), "float32", "A")
    i = Var("i")
    first = loop(i, 2, BufferStore(A, const(1.0), (i,)))
    second = loop(i, 8, IfThenElse(i < 4, BufferStore(A, const(2.0), (i,))))
    after = T.simplify(func_of([A], seq(first, second)))
    # in the second loop ``i < 4`` is not always true, so the check must stay
    assert isinstance(after.body.seq[1].body, IfThenElse)
    assert after.body.seq[1].loop_var is not i
