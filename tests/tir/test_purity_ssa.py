"""verify_ssa, expr_deep_equal, is_pure_function / assert_pure_function."""

import pytest

from ember import tir
from ember.script import tir as T
from ember.tir.analysis import assert_pure_function, expr_deep_equal, is_pure_function, verify_ssa


def test_verify_ssa():
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    body = tir.Evaluate(x + y)
    assert verify_ssa(tir.PrimFunc((x, y), body))
    assert not verify_ssa(tir.PrimFunc((x, y), tir.LetStmt(x, 1, body)))
    shared = tir.Let(x, 1, x + 1)
    assert verify_ssa(tir.PrimFunc((), tir.Evaluate(shared + shared)))  # one Let used twice
    assert not verify_ssa(tir.PrimFunc((), tir.Evaluate(shared * tir.Let(x, 2, x + 2))))


def test_expr_deep_equal_compares_variables_by_identity():
    x, y = tir.Var("x", "int32"), tir.Var("x", "int32")
    assert expr_deep_equal(x + 1, x + 1)
    assert not expr_deep_equal(x + 1, y + 1)


class Kernels:  # a plain class: its prim_funcs are parsed at once (not an ir_module)
    @T.prim_func
    def reads_only(A: T.Buffer((4,), "float32")) -> T.float32:
        T.ret(A[0])

    @T.prim_func
    def writes_argument(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)

    @T.prim_func
    def calls_extern():
        T.evaluate(T.call_extern("side_effect", dtype="int32"))

    @T.prim_func
    def local_scratch(A: T.Buffer((4,), "float32")) -> T.float32:
        S = T.decl_buffer((1,), "float32")
        S[0] = A[0] + A[1]
        T.ret(S[0])


def test_purity():
    assert is_pure_function(Kernels.reads_only) and is_pure_function(Kernels.local_scratch)
    assert assert_pure_function(Kernels.reads_only)
    assert not is_pure_function(Kernels.writes_argument)
    with pytest.raises(AssertionError, match="writes the argument buffer 'A'"):
        assert_pure_function(Kernels.writes_argument)
    with pytest.raises(AssertionError, match="calls 'side_effect'"):
        assert_pure_function(Kernels.calls_extern)
