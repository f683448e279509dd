"""HoistExpression / HoistIfThenElse: loop-invariant conditions and bindings leave loops,
and the hoisted program computes the same values."""

import numpy as np

import ember as tvm
from ember.script import tir as T
from ember.tir.transform import HoistedConditionals, HoistedLetBindings


@T.prim_func
def if_else_in_inner_loop(A: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        if i < 3:
            A[i, j] = T.float32(0)
        else:
            A[i, j] = T.float32(1)


@T.prim_func
def invariant_select_expr(A: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        A[i, j] = T.if_then_else(i < 2, T.float32(1), T.float32(2))


def _hoist(func, conditionals=HoistedConditionals.All, lets=HoistedLetBindings.All):
    config = {"tir.HoistExpression": {"hoisted_conditionals": conditionals.value,
                                      "hoisted_let_bindings": lets.value}}
    with tvm.transform.PassContext(config=config):
        return tvm.tir.transform.HoistExpression()(tvm.IRModule({"main": func}))["main"]


def _run(func):
    a = np.full((4, 4), -1, dtype="float32")
    tvm.build(func, target="llvm")(a)
    return a


def test_if_moves_above_inner_loop_with_both_branches():
    after = _hoist(if_else_in_inner_loop)
    outer = after.body
    assert isinstance(outer, tvm.tir.For) and isinstance(outer.body, tvm.tir.IfThenElse)
    branch = outer.body
    assert isinstance(branch.then_case, tvm.tir.For) and isinstance(branch.else_case, tvm.tir.For)
    assert not branch.then_case.loop_var.same_as(branch.else_case.loop_var)  # SSA copies
    np.testing.assert_array_equal(_run(after), _run(if_else_in_inner_loop))


def test_if_then_else_expression_hoisted_only_when_enabled():
    after = _hoist(invariant_select_expr)
    assert isinstance(after.body.body, tvm.tir.IfThenElse)
    np.testing.assert_array_equal(_run(after), _run(invariant_select_expr))
    kept = _hoist(invariant_select_expr, HoistedConditionals.All & ~HoistedConditionals.IfElseExpr)
    assert kept.same_as(invariant_select_expr)


def test_and_terms_hoisted_to_their_own_loops():
    @T.prim_func
    def conjunction(A: T.Buffer((4, 4), "float32")):
        for i, j, k in T.grid(4, 4, 4):
            if j < 3 and i < 2:
                A[i, j] = A[i, j] + T.float32(1)

    after = _hoist(conjunction)
    text = after.script()
    assert text.index("if i < 2") < text.index("for j") < text.index("if j < 3") < text.index("for k")
    np.testing.assert_array_equal(_run(after), _run(conjunction))


def test_condition_reading_memory_stays():
    @T.prim_func
    def data_dependent(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4,), "float32")):
        for i, j in T.grid(4, 4):
            if B[i] > T.float32(0):
                A[i, j] = T.float32(0)

    assert _hoist(data_dependent).same_as(data_dependent)


def test_hoist_if_then_else_pass():
    after = tvm.tir.transform.HoistIfThenElse()(tvm.IRModule({"main": if_else_in_inner_loop}))
    assert isinstance(after["main"].body.body, tvm.tir.IfThenElse)


def test_hoist_if_then_else_needs_a_perfect_nest():
    @T.prim_func
    def with_sibling(A: T.Buffer((4, 4), "float32"), n: T.int32):
        for i, j in T.grid(4, 4):
            A[i, j] = T.float32(1)
            for k in range(4):
                if n > 0:
                    A[i, k] = T.float32(2)

    after = tvm.tir.transform.HoistIfThenElse()(tvm.IRModule({"main": with_sibling}))["main"]
    text = after.script()
    # out of the k loop (its whole body), but not past the j loop's sibling store
    assert text.index("T.grid(4, 4)") < text.index("if n > 0") < text.index("for k")


def test_no_hoisting_across_thread_launch_without_block_var_flag():
    @T.prim_func
    def launched(A: T.Buffer((128, 16), "float32"), n: T.int32):
        tx = T.launch_thread("threadIdx.x", 128)
        for j in range(16):
            if n == 0:
                A[tx, j] = T.float32(0)

    plain = _hoist(launched, HoistedConditionals.All & ~HoistedConditionals.UsingBlockVar)
    assert isinstance(plain.body, tvm.tir.AttrStmt)  # the launch stays outermost
    across = _hoist(launched)
    assert isinstance(across.body, tvm.tir.IfThenElse)
