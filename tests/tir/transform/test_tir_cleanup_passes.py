"""RemoveAssume, RemoveStoreUndef, ConvertForLoopsToSerial, RewriteUnsafeSelect,
CombineContextCall, and ConvertBlocksToOpaque's refusal of predicates on block iterators."""

import numpy as np
import pytest

import ember as tvm
from ember.script import tir as T
from ember.tir.transform._common import TransformError


def _run(pass_, func):
    return pass_(tvm.IRModule({"main": func}))["main"]


def test_remove_assume_and_empty_loop():
    @T.prim_func
    def before(A: T.Buffer((16,), "int32")):
        for i in range(16):
            T.evaluate(T.assume(A[i] == 0))
        for i in range(16):
            A[i] = 10

    @T.prim_func
    def expected(A: T.Buffer((16,), "int32")):
        for i in range(16):
            A[i] = 10

    after = _run(tvm.tir.transform.RemoveAssume(), before)
    tvm.ir.assert_structural_equal(after.body, expected.body, map_free_vars=True)


def test_remove_store_undef():
    @T.prim_func
    def before(A: T.Buffer((2,), "int32")):
        A[0] = 1 + T.undef(dtype="int32")
        A[1] = 3

    after = _run(tvm.tir.transform.RemoveStoreUndef(), before)
    assert "undef" not in after.script() and "A[1] = 3" in after.script()


def test_remove_store_undef_refuses_undef_index():
    @T.prim_func
    def before(A: T.Buffer((1,), "int32"), B: T.Buffer((1,), "int32")):
        B[0] = A[T.undef(dtype="int32")]

    with pytest.raises(tvm.TVMError, match="index of buffer 'A'"):
        _run(tvm.tir.transform.RemoveStoreUndef(), before)


def test_parallel_loops_become_serial_and_compute_the_same():
    @T.prim_func
    def double(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in T.parallel(8):
            B[i] = A[i] * T.float32(2)

    after = _run(tvm.tir.transform.ConvertForLoopsToSerial(), double)
    kinds = [x.kind for x in tvm.tir.collect(after.body, lambda x: isinstance(x, tvm.tir.For))]
    assert kinds == [tvm.tir.ForKind.SERIAL]
    a = np.arange(8, dtype="float32")
    b = np.zeros(8, dtype="float32")
    tvm.build(after, target="llvm")(a, b)
    np.testing.assert_allclose(b, a * 2)


def test_rewrite_unsafe_select():
    i = tvm.tir.Var("i", "int32")
    A = tvm.tir.decl_buffer((100,), "float32", "A")
    unsafe = tvm.tir.Select(i > 1, tvm.tir.BufferLoad(A, [i - 1]), tvm.tir.const(1.0, "float32"))
    safe = tvm.tir.Select(i > 1, i * 2, i)
    func = tvm.tir.PrimFunc([i], tvm.tir.SeqStmt([tvm.tir.Evaluate(unsafe), tvm.tir.Evaluate(safe)]))
    after = _run(tvm.tir.transform.RewriteUnsafeSelect(), func)
    first, second = after.body.seq
    assert first.value.op.name == "tir.if_then_else"
    assert isinstance(second.value, tvm.tir.Select)


def _context(dev_type, dev_id):
    ctx = tvm.tir.call_extern("handle", "device_context", dev_type, dev_id)
    return tvm.tir.Call("handle", "tir.tvm_thread_context", [ctx])


def test_combine_context_call_binds_each_context_once():
    dev = tvm.tir.Var("dev", "int32")
    calls = [tvm.tir.Evaluate(tvm.tir.call_extern("int32", "f", _context(dev, k))) for k in (0, 1, 0)]
    func = tvm.tir.PrimFunc([dev], tvm.tir.SeqStmt(calls)).with_attr("target", tvm.target.Target("llvm"))
    after = _run(tvm.tir.transform.CombineContextCall(), func)
    outer, inner = after.body, after.body.body
    assert isinstance(outer, tvm.tir.LetStmt) and isinstance(inner, tvm.tir.LetStmt)
    uses = [e.value.args[1] for e in inner.body.seq]
    assert uses[0].same_as(outer.var) and uses[1].same_as(inner.var) and uses[2].same_as(outer.var)
    # without a host target the function is left alone
    plain = tvm.tir.PrimFunc([dev], tvm.tir.SeqStmt(calls))
    assert _run(tvm.tir.transform.CombineContextCall(), plain).same_as(plain)


def test_convert_blocks_to_opaque_refuses_predicate_on_block_iterators():
    @T.prim_func(check_well_formed=False)
    def before(A: T.Buffer((8,), "int32")):
        for i in range(8):
            with T.block():
                vi = T.axis.remap("S", [i])
                T.where(vi < 6)
                T.evaluate(0)

    with pytest.raises(TransformError, match="predicate uses the block's own iterators"):
        _run(tvm.tir.transform.ConvertBlocksToOpaque(), before)


def test_remove_no_op_pure_evaluate_negative_extent_and_empty_then():
    @T.prim_func
    def before(A: T.Buffer((16,), "int32"), n: T.int32):
        for i in range(16):
            for j in range(i - 20):  # never runs: i < 16
                A[i] = j
            T.evaluate(n * 2 + A[i])  # computes a value nobody uses
            T.evaluate(T.call_extern("int32", "keep_me", i))
            if i < 8:
                T.evaluate(0)
            else:
                A[i] = 42

    after = _run(tvm.tir.transform.RemoveNoOp(), before)
    text = after.script()
    assert "range(i - 20)" not in text and "n * 2" not in text
    assert "keep_me" in text and "if not i < 8" in text.replace("(", "").replace(")", "")
