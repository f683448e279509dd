"""Issue 15 (hardening): an index read from data (gather_elements, gather_nd, scatter_nd,
``A[B[i]]``) holding an out-of-range value made the kernel read or write outside its
buffer and killed the process with SIGSEGV.  GuardDataDependentIndices clamps such load
indices into the buffer and drops such out-of-range stores."""

import subprocess
import sys
import textwrap

import numpy as np

import ember
from ember import te, tir
from ember.script import tir as T
from ember.tir.transform.guard_data_indices import guard_data_dependent_indices

BIG = 1 << 40


@T.prim_func
def gather_scatter(A: T.Buffer((8,), "float32"), idx: T.Buffer((4,), "int64"), B: T.Buffer((4,), "float32"),
                   C: T.Buffer((8,), "float32")):
    for i in range(4):
        with T.block("gather"):
            vi = T.axis.spatial(4, i)
            B[vi] = A[idx[vi]]
    for i in range(4):
        with T.block("scatter"):
            vi = T.axis.spatial(4, i)
            C[idx[vi]] = T.float32(1)


@T.prim_func
def loop_from_data(A: T.Buffer((8,), "float32"), n: T.Buffer((1,), "int32"), B: T.Buffer((1,), "float32")):
    B[0] = T.float32(0)
    for j in range(n[0]):
        k = j * 2
        B[0] = B[0] + A[k]


def test_loads_are_clamped_and_stores_dropped():
    f = ember.build(gather_scatter, target="llvm")
    a = np.arange(8, dtype="float32")
    b, c = np.zeros(4, "float32"), np.zeros(8, "float32")
    f(a, np.array([2, BIG, -BIG, 7]), b, c)
    np.testing.assert_array_equal(b, [2, 7, 0, 7])
    np.testing.assert_array_equal(c, [0, 0, 1, 0, 0, 0, 0, 1])


def test_loop_bounds_and_let_values_from_data_are_guarded():
    f = ember.build(loop_from_data, target="llvm")
    a = np.arange(8, dtype="float32")
    b = np.zeros(1, "float32")
    f(a, np.array([3], "int32"), b)
    assert b[0] == 0 + 2 + 4
    f(a, np.array([100000], "int32"), b)  # j * 2 runs far past A: clamped to A[7]
    assert b[0] == 0 + 2 + 4 + 6 + 7 * (100000 - 4)


def test_affine_indices_are_left_alone():
    A = te.placeholder((16,), "float32", name="A")
    B = te.compute((8,), lambda i: A[i * 2 + 1], name="B")
    func = te.create_prim_func([A, B])
    lowered = tir.transform.LowerOpaqueBlock()(tir.transform.ConvertBlocksToOpaque()(
        ember.ir.IRModule.from_expr(func)))["main"]
    assert guard_data_dependent_indices(lowered) is lowered


def test_topi_gathers_with_out_of_range_indices_do_not_crash():
    code = textwrap.dedent(f"""
        import numpy as np, ember
        from ember import te, topi
        data = te.placeholder((4, 3), "float32", name="data")
        ind = te.placeholder((1, 3), "int64", name="ind")
        ind_nd = te.placeholder((2, 1), "int64", name="ind_nd")
        x = np.arange(12, dtype="float32").reshape(4, 3)
        out = np.zeros((1, 3), "float32")
        ember.build(te.create_prim_func([data, ind, topi.gather(data, 0, ind)]), target="llvm")(
            x, np.array([[{BIG}, 0, -{BIG}]]), out)
        assert out.tolist() == [[9, 1, 2]], out
        out = np.zeros(1, "float32")  # one index tuple (BIG, -BIG): data[3, 0]
        ember.build(te.create_prim_func([data, ind_nd, topi.gather_nd(data, ind_nd)]), target="llvm")(
            x, np.array([[{BIG}], [-{BIG}]]), out)
        assert out.tolist() == [9], out
        ind2 = te.placeholder((2, 1), "int64", name="ind2")
        upd2 = te.placeholder((2, 3), "float32", name="upd2")
        out = np.zeros((4, 3), "float32")
        ember.build(te.create_prim_func([data, ind2, upd2, topi.scatter_nd(data, ind2, upd2)]), target="llvm")(
            x, np.array([[1 << 30], [1]]), np.full((2, 3), -1, "float32"), out)  # the op wraps
        # negative indices after casting them to the int32 dims, so its bad index fits int32
        expected = x.copy()
        expected[1] = -1
        assert np.array_equal(out, expected), out
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"
