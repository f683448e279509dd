"""LowerMatchBuffer: match-buffer views become source accesses (blocks kept), contradictory
views are refused, and the lowered function computes the same values; register_op_attr."""

import numpy as np
import pytest

import ember as tvm
from ember import tir
from ember.script import tir as T
from ember.tir.transform._common import TransformError


@T.prim_func
def row_view(A: T.Buffer((4, 8), "float32")):
    for i in range(4):
        with T.block():
            sub = T.match_buffer(A[i, 0:8], (8,), offset_factor=1)
            for j in range(8):
                sub[j] = T.float32(1) * T.Cast("float32", i * 8 + j)


def _lower(func):
    return tvm.tir.transform.LowerMatchBuffer()(tvm.IRModule({"main": func}))["main"]


def test_view_becomes_source_access_and_computes_the_same():
    after = _lower(row_view)
    blocks = tvm.tir.collect(after.body, lambda x: isinstance(x, tir.Block))
    assert all(not b.match_buffers for b in blocks)
    stores = tvm.tir.collect(after.body, lambda x: isinstance(x, tir.BufferStore))
    assert stores[0].buffer.name == "A" and len(stores[0].indices) == 2
    a = np.zeros((4, 8), dtype="float32")
    tvm.build(after, target="llvm")(a)
    np.testing.assert_array_equal(a, np.arange(32, dtype="float32").reshape(4, 8))


def test_contradicting_offset_is_refused():
    @T.prim_func
    def wrong_offset(A: T.Buffer((8, 8), "float32")):
        for i, j in T.grid(8, 8):
            with T.block():
                sub = T.match_buffer(A[i, j], (), elem_offset=0)
                sub[()] = T.float32(0)

    with pytest.raises(TransformError, match="declares elem_offset 0"):
        _lower(wrong_offset)


def test_register_op_attr_decorator():
    @tvm.ir.register_op_attr("tir.ember_test_intrin", "FTest")
    def impl():
        return 0

    assert tvm.ir.Op.get("tir.ember_test_intrin").get_attr("FTest") is impl


def test_lower_opaque_block_drops_unit_loops_and_turns_pragmas_into_attrs():
    @T.prim_func
    def unit_and_pragma(A: T.Buffer((8,), "float32")):
        for i in range(0, 8, annotations={"pragma_hint": 1}):
            for u in range(1):
                with T.block():
                    A[i + u] = T.float32(2)

    after = tvm.tir.transform.LowerOpaqueBlock()(tvm.IRModule({"main": unit_and_pragma}))["main"]
    attr = after.body
    assert isinstance(attr, tir.AttrStmt) and attr.attr_key == "pragma_hint"
    loop = attr.body
    assert isinstance(loop, tir.For) and isinstance(loop.body, tir.BufferStore)  # u loop gone
    a = np.zeros(8, dtype="float32")
    tvm.build(after, target="llvm")(a)
    np.testing.assert_array_equal(a, np.full(8, 2, dtype="float32"))
