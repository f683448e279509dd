"""Issue 15: a symbolic intermediate buffer too large to allocate raises MemoryError at the
call (it used to wrap its int32 size around, or dereference a NULL allocation, and crash)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
from ember import te


def _outer_product_sum(index_dtype: str):
    """``B[i] = sum_k A[i] * A[k]`` through an n x n intermediate ``T``."""
    n = te.var("n", index_dtype)
    A = te.placeholder((n,), "float32", name="A")
    T = te.compute((n, n), lambda i, j: A[i] * A[j], name="T")
    k = te.reduce_axis((0, n), "k")
    B = te.compute((n,), lambda i: te.sum(T[i, k], axis=k), name="B")
    return ember.build(te.create_prim_func([A, B]), target="llvm")


def test_int32_intermediate_larger_than_its_indices_raises_memory_error():
    f = _outer_product_sum("int32")
    big = np.ones(1 << 20, "float32")
    with pytest.raises(MemoryError, match=r"main: the intermediate buffer 'T' would have n \* n elements of "
                                          r"float32, more than the 2\*\*31 - 1"):
        f(big, np.zeros_like(big))
    out = np.zeros(4, "float32")
    f(np.ones(4, "float32"), out)  # still usable afterwards
    np.testing.assert_array_equal(out, np.full(4, 4.0))


def test_failed_heap_allocation_raises_memory_error():
    f = _outer_product_sum("int64")  # 2**40 float32 elements: 4 TiB, refused by the allocator
    big = np.ones(1 << 20, "float32")
    with pytest.raises(MemoryError, match=r"main: could not allocate the intermediate buffer 'T' \(n \* n "
                                          r"elements of float32\): out of memory"):
        f(big, np.zeros_like(big))
    out = np.zeros(3, "float32")
    f(np.ones(3, "float32"), out)
    np.testing.assert_array_equal(out, np.full(3, 3.0))


def test_huge_intermediate_does_not_kill_the_process():
    code = textwrap.dedent("""
        import numpy as np, ember
        from ember import te
        n = te.var("n")
        A = te.placeholder((n,), "float32", name="A")
        T = te.compute((n, n), lambda i, j: A[i] * A[j], name="T")
        k = te.reduce_axis((0, n), "k")
        B = te.compute((n,), lambda i: te.sum(T[i, k], axis=k), name="B")
        f = ember.build(te.create_prim_func([A, B]), target="llvm")
        a = np.ones(1 << 20, "float32")
        try:
            f(a, np.zeros_like(a))
        except MemoryError:
            print("raised")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "raised"
