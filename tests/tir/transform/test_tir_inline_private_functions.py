"""InlinePrivateFunctions: private subroutine calls are inlined (fresh variables per call
site, the callee removed), recursive and cross-target callees are kept."""

import numpy as np

import ember as tvm
from ember import tir
from ember.script import ir as I
from ember.script import tir as T


@I.ir_module
class RowSums:
    @T.prim_func
    def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            RowSums.row_sum(T.address_of(A[i, 0]), T.address_of(B[i]))

    @T.prim_func(private=True)
    def row_sum(a_data: T.handle("float32"), b_data: T.handle("float32")):
        a = T.decl_buffer((8,), "float32", data=a_data)
        b = T.decl_buffer((1,), "float32", data=b_data)
        b[0] = T.float32(0)
        for j in range(8):
            b[0] = b[0] + a[j]


def test_private_call_is_inlined_and_callee_removed():
    after = tvm.tir.transform.InlinePrivateFunctions()(RowSums)
    assert [gv.name_hint for gv in after.functions] == ["main"]
    main = after["main"]
    assert not tvm.tir.collect(main.body, lambda x: isinstance(x, tir.Call)
                               and isinstance(x.op, tvm.ir.GlobalVar))
    assert len(tvm.tir.collect(main.body, lambda x: isinstance(x, tir.LetStmt))) == 2
    a = np.arange(32, dtype="float32").reshape(4, 8)
    b = np.zeros(4, dtype="float32")
    tvm.build(tvm.tir.transform.Simplify()(after)["main"], target="llvm")(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1))


def test_recursive_callee_is_kept():
    @I.ir_module
    class Recursive:
        @T.prim_func
        def main(A: T.Buffer((16,), "float32")):
            Recursive.step(T.address_of(A[0]), 16)

        @T.prim_func(private=True)
        def step(a_data: T.handle("float32"), n: T.int32):
            a = T.decl_buffer((16,), "float32", data=a_data)
            a[0] = a[0] + T.float32(1)
            if n > 1:
                Recursive.step(T.address_of(a[1]), n - 1)

    assert tvm.tir.transform.InlinePrivateFunctions()(Recursive) is Recursive
