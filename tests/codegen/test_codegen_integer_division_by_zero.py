"""Issue 15 (hardening): an integer kernel dividing by a run-time zero, or the signed
``MIN / -1``, used to end the process with SIGFPE (the x86 divide instruction traps).
Now every integer Div/Mod/FloorDiv/FloorMod whose divisor is not a constant other than
0 and -1 is guarded: ``x / 0`` and ``x % 0`` give 0, ``MIN / -1`` gives ``MIN`` (the
wrapped quotient) and ``MIN % -1`` gives 0, which is what numpy computes.  The cases run
in a child process, so a regression fails the test instead of killing pytest."""

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import numpy as np
    import ember
    from ember import te, tir

    OPS = {
        "floordiv": (te.floordiv, lambda a, b: a // b),
        "floormod": (te.floormod, lambda a, b: a % b),
        "truncdiv": (te.truncdiv, None),
        "truncmod": (te.truncmod, None),
    }

    def trunc_ref(a, b, mod):
        bits = a.dtype.itemsize * 8
        wrap = (lambda v: (v + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))) if a.dtype.kind == "i" else int
        out = []
        for x, y in zip(a.tolist(), b.tolist()):
            if y == 0:
                out.append(0)
                continue
            q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
            out.append(wrap(x - q * y if mod else q))
        return np.array(out, dtype=a.dtype)  # MIN / -1 wraps back to MIN

    def check(dtype, vector):
        info = np.iinfo(dtype)
        signed = info.min < 0
        a = np.array([7, info.min, 5, info.max, 0, 9, info.min, 3], dtype)
        b = np.array([0, -1 if signed else 1, 0, 2, 0, -4 if signed else 4, 0, 1], dtype)
        for name, (fn, ref) in OPS.items():
            A = te.placeholder((8,), dtype, name="A")
            B = te.placeholder((8,), dtype, name="B")
            C = te.compute((8,), lambda i: fn(A[i], B[i]), name="C")
            sch = tir.Schedule(te.create_prim_func([A, B, C]))
            if vector:
                sch.vectorize(sch.get_loops(sch.get_block("C"))[0])
            f = ember.build(sch.mod, target="llvm")
            c = np.full(8, 1, dtype)
            f(a, b, c)
            with np.errstate(all="ignore"):
                expected = ref(a, b) if ref is not None else trunc_ref(a, b, name == "truncmod")
            assert np.array_equal(c, expected), (dtype, vector, name, c, expected)

    for dtype in ["int8", "int32", "int64", "uint8", "uint32"]:
        for vector in (False, True):
            check(dtype, vector)

    # a scalar divisor given at the call
    n = te.var("n")
    A = te.placeholder((4,), "int32", name="A")
    C = te.compute((4,), lambda i: A[i] // n + A[i] % n, name="C")
    f = ember.build(te.create_prim_func([A, C, n]), target="llvm")
    c = np.ones(4, "int32")
    f(np.arange(4, dtype="int32"), c, 0)
    assert np.array_equal(c, np.zeros(4)), c
    print("ok")
""")


def test_integer_division_by_zero_does_not_kill_the_process():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"


def test_only_divisors_that_may_trap_are_guarded():
    import ember
    from ember import te

    A = te.placeholder((16,), "int32", name="A")
    B = te.placeholder((16,), "int32", name="B")
    plain = te.compute((16,), lambda i: A[i] // 3 + A[i] % 5 + te.truncdiv(A[i], 7), name="C")
    ll = ember.build(te.create_prim_func([A, plain]), target="llvm").get_source("ll-unopt")
    assert "divisor_is_zero" not in ll
    C = te.compute((16,), lambda i: te.truncdiv(A[i], B[i]), name="C")
    ll = ember.build(te.create_prim_func([A, B, C]), target="llvm").get_source("ll-unopt")
    assert "divisor_is_zero" in ll
