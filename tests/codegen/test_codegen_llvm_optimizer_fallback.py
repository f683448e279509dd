"""Issue 15 (found by the schedule fuzzer): LLVM's SLP vectorizer broke a small matmul+relu
nest ("Instruction does not dominate all uses"), and code generation then aborted the
process.  The optimised module is verified; a broken one is optimised again without the
SLP vectorizer.  Run in a child process: a regression would abort."""

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import numpy as np
    import ember
    from ember import te, tir

    A = te.placeholder((2, 9), "float32", name="A")
    B = te.placeholder((9, 9), "float32", name="B")
    k = te.reduce_axis((0, 9), "k")
    C = te.compute((2, 9), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    D = te.compute((2, 9), lambda i, j: te.max(C[i, j], te.const(0, "float32")), name="D")
    sch = tir.Schedule(te.create_prim_func([A, B, D]))
    l1, l2 = sch.get_loops(sch.get_block("D"))
    sch.split(l2, [None, 5])
    c = sch.get_block("C")
    sch.decompose_reduction(c, sch.get_loops(c)[2])
    sch.reindex(sch.get_block("C_update"), ("read", 1))  # reads are (C, A, B) after decompose_reduction
    sch.split(sch.get_loops(sch.get_block("D"))[0], [None, 1])
    sch.cache_write(sch.get_block("A_reindex"), 0, "local")
    f = ember.build(sch.mod, target="llvm")
    a = np.random.default_rng(0).standard_normal((2, 9)).astype("float32")
    b = np.random.default_rng(1).standard_normal((9, 9)).astype("float32")
    d = np.zeros((2, 9), "float32")
    f(a, b, d)
    np.testing.assert_allclose(d, np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)
    print("ok")
""")


def test_llvm_optimizer_bug_does_not_abort_the_process():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"
