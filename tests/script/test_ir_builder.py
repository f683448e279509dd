"""The frame-based IR builder (ember.script.ir_builder) builds the IR the parser builds."""

import numpy as np
import pytest

import ember
from ember import tir
from ember.ir import assert_structural_equal
from ember.script import tir as TS
from ember.script.ir_builder import IRBuilder
from ember.script.ir_builder import ir as I
from ember.script.ir_builder import tir as T


@TS.prim_func
def add_one_128(A: TS.Buffer((128,), "float32"), B: TS.Buffer((128,), "float32")):
    for i in range(128):
        with TS.block("B"):
            vi = TS.axis.spatial(128, i)
            B[vi] = A[vi] + TS.float32(1)


@TS.prim_func
def row_sum_16(A: TS.Buffer((16, 16), "float32"), B: TS.Buffer((16,), "float32")):
    for i, k in TS.grid(16, 16):
        with TS.block("B"):
            vi, vk = TS.axis.remap("SR", [i, k])
            with TS.init():
                B[vi] = TS.float32(0)
            B[vi] = B[vi] + A[vi, vk]


def build_add_one():
    with IRBuilder() as ib:
        with T.prim_func():
            T.func_name("add_one_128")
            A = T.arg("A", T.Buffer((128,), "float32"))
            B = T.arg("B", T.Buffer((128,), "float32"))
            with T.serial(128) as i:
                with T.block("B"):
                    vi = T.axis.spatial(128, i)
                    T.buffer_store(B, A[vi] + T.float32(1), [vi])
    return ib.get()


def test_builder_scopes_nest():
    with IRBuilder() as outer:
        assert IRBuilder.current() is outer
        with IRBuilder() as inner:
            assert IRBuilder.current() is inner
        assert IRBuilder.current() is outer


def test_no_open_builder_is_an_error():
    with pytest.raises(ValueError, match="no IRBuilder"):
        IRBuilder.current()


def test_prim_func_matches_parser_and_runs():
    func = build_add_one()
    assert_structural_equal(func, add_one_128)
    assert func.attrs["global_symbol"] == "add_one_128"
    mod = ember.build(func, "llvm")
    a = ember.nd.array(np.arange(128, dtype="float32"))
    b = ember.nd.array(np.zeros(128, dtype="float32"))
    mod(a, b)
    np.testing.assert_allclose(b.numpy(), np.arange(128) + 1)


def test_reduction_block_with_init_and_remap():
    with IRBuilder() as ib:
        with T.prim_func():
            T.func_name("row_sum_16")
            A = T.arg("A", T.Buffer((16, 16), "float32"))
            B = T.arg("B", T.Buffer((16,), "float32"))
            with T.grid(16, 16) as (i, k):
                with T.block("B"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    with T.init():
                        T.buffer_store(B, T.float32(0), [vi])
                    T.buffer_store(B, B[vi] + A[vi, vk], [vi])
    assert_structural_equal(ib.get(), row_sum_16)


def test_block_outside_function_keeps_detection_mark():
    with IRBuilder() as ib:
        with T.block("b"):
            T.evaluate(0)
    realize = ib.get()
    assert isinstance(realize, tir.BlockRealize)
    assert int(realize.block.annotations["tir.script_parsing_detect_access"]) == 3


def test_name_renames_in_place():
    with IRBuilder() as ib:
        with T.block("b"):
            v = IRBuilder.name("vi", T.axis.spatial(8, T.int32()))
            T.evaluate(v)
    assert ib.get().block.iter_vars[0].var.name == "vi"


def test_scoped_statements():
    with IRBuilder() as ib:
        with T.LetStmt(tir.IntImm("int32", 2)) as x:
            with T.If(x < 3):
                with T.Then():
                    T.evaluate(1)
                with T.Else():
                    T.evaluate(2)
    stmt = ib.get()
    assert isinstance(stmt, tir.LetStmt) and isinstance(stmt.body, tir.IfThenElse)
    assert stmt.body.condition.a is stmt.var


def test_if_without_then_is_an_error():
    with pytest.raises(ValueError, match="Then"):
        with IRBuilder():
            with T.If(T.int32() < 1):
                pass


def test_ir_module_collects_functions():
    with IRBuilder() as ib:
        with I.ir_module():
            with T.prim_func():
                T.func_name("f")
                T.evaluate(0)
    mod = ib.get()
    assert [gv.name_hint for gv in mod.functions] == ["f"]


def test_get_with_open_frame_is_an_error():
    with IRBuilder() as ib:
        frame = T.prim_func()
        frame.__enter__()
        with pytest.raises(ValueError, match="still open"):
            ib.get()


def test_stmt_constructors_take_python_values():
    s = tir.Evaluate(0)
    assert s.value.dtype == "int32"
    iv = tir.IterVar((0, 8), "v", tir.IterVar.ThreadIndex, "threadIdx.x")
    assert int(iv.dom.extent) == 8 and iv.var.name == "v"
    a = tir.AssertStmt(tir.Var("x", "int32") > 0, "positive", tir.Evaluate(0))
    assert a.message.value == "positive"
    r = tir.BlockRealize([], True, tir.Block([], [], [], "b", tir.Evaluate(0)))
    assert r.predicate.dtype == "bool" and r.iter_values == ()
