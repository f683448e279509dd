"""Flat TIR → LLVM → a callable, end to end (``B[i] = A[i] + 1.0``)."""

import numpy as np
import pytest

import ember
from ember import te
from ember.codegen.llvm import build_llvm, cache_info
from ember.ir import IRModule

from codegen_helpers import elementwise


@pytest.fixture(scope="module")
def add_one_symbolic():
    return ember.build(elementwise(lambda a: a + 1.0, ["float32"], "float32"), target="llvm")


@pytest.mark.parametrize("n", [1, 7, 1_000_003])
def test_add_one_symbolic_n_reuses_one_function(add_one_symbolic, n):
    a = np.random.default_rng(n).standard_normal(n).astype("float32")
    b = np.zeros(n, "float32")
    add_one_symbolic(a, b)
    np.testing.assert_array_equal(b, a + np.float32(1.0))


def test_add_one_fixed_shape_with_ember_arrays():
    mod = ember.build(elementwise(lambda a: a + 1.0, ["float32"], "float32", n=16), target="llvm")
    a = ember.runtime.array(np.arange(16, dtype="float32"))
    b = ember.runtime.empty((16,), "float32")
    mod["main"](a, b)
    np.testing.assert_array_equal(b.numpy(), np.arange(16, dtype="float32") + 1)


def test_zero_size_arrays_run():
    mod = ember.build(elementwise(lambda a: a + 1.0, ["float32"], "float32"), target="llvm")
    mod(np.zeros(0, "float32"), np.zeros(0, "float32"))


def test_te_create_prim_func_path():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0 + 1.0, name="B")
    mod = ember.build(te.create_prim_func([A, B]), target="llvm")
    a = np.linspace(-3, 3, 33).astype("float32")
    b = np.zeros_like(a)
    mod(a, b)
    np.testing.assert_array_equal(b, a * 2 + 1)


def test_two_dimensional_te_compute():
    A = te.placeholder((5, 7), name="A")
    B = te.compute((7, 5), lambda i, j: A[j, i] - 1.0, name="B")
    mod = ember.build(te.create_prim_func([A, B]), target="llvm")
    a = np.random.default_rng(0).standard_normal((5, 7)).astype("float32")
    b = np.zeros((7, 5), "float32")
    mod(a, b)
    np.testing.assert_array_equal(b, a.T - 1)


def test_rebuild_hits_the_cache():
    func = elementwise(lambda a: a * 3.0, ["float32"], "float32", name="times3")
    target = ember.target.Target("llvm")
    lowered = ember.lower(func)
    before = cache_info()["hits"]
    first = build_llvm(lowered, target)
    second = build_llvm(IRModule(dict(lowered.functions)), target)
    assert cache_info()["hits"] >= before + 1
    assert second.compiled is first.compiled


def test_rebuild_after_cache_clear_and_gc():
    """An MCJIT engine owns its target machine: machines must never be shared between builds."""
    import gc

    from ember.codegen.llvm import clear_cache

    func = elementwise(lambda a: a - 2.0, ["float32"], "float32", name="minus2")
    mod = ember.build(func, target="llvm")
    del mod
    clear_cache()
    gc.collect()
    mod = ember.build(func, target="llvm")
    a = np.arange(5, dtype="float32")
    b = np.zeros_like(a)
    mod(a, b)
    np.testing.assert_array_equal(b, a - 2)
    assert "minus2" in mod.get_source("asm")


def test_fast_math_target_option():
    func = elementwise(lambda a, b: a * b + a, ["float32", "float32"], "float32", name="fma_like")
    precise = ember.build(func, target="llvm")
    fast = ember.build(func, target="llvm -fast-math")
    assert "fmul fast" in fast.get_source("ll-unopt")
    assert "fast" not in precise.get_source("ll-unopt")
    a = np.linspace(-2, 2, 50).astype("float32")
    b = np.linspace(1, 3, 50).astype("float32")
    out = np.zeros_like(a)
    fast(a, b, out)
    np.testing.assert_allclose(out, a * b + a, rtol=1e-6)


def test_cache_does_not_mix_up_parameter_names():
    from ember.ir import Var, const
    from ember.tir import BufferStore, For, ForKind, PrimFunc, decl_buffer

    def copy(src_name, dst_name):
        n = Var("n")
        src, dst = decl_buffer((n,), "float32", src_name), decl_buffer((n,), "float32", dst_name)
        hs, hd = Var(src_name, "handle"), Var(dst_name, "handle")
        i = Var("i")
        body = For(i, const(0), n, ForKind.SERIAL, BufferStore(dst, src[i], (i,)))
        return PrimFunc((hs, hd), body, buffer_map={hs: src, hd: dst})

    first = ember.build(copy("A", "B"), target="llvm")
    second = ember.build(copy("X", "Y"), target="llvm")
    with pytest.raises(ember.runtime.ArgumentError, match="argument 'Y' \\(#2\\)"):
        second(np.zeros(3, "float32"), np.zeros(4, "float32"))
    with pytest.raises(ember.runtime.ArgumentError, match="argument 'B' \\(#2\\)"):
        first(np.zeros(3, "float32"), np.zeros(4, "float32"))


def test_concurrent_builds_and_calls_from_threads():
    from concurrent.futures import ThreadPoolExecutor

    from ember.tir import ForKind

    def work(k: int):
        kind = ForKind.PARALLEL if k % 2 else ForKind.SERIAL
        func = elementwise(lambda a, k=k: a * float(k) + 1.0, ["float32"], "float32", name=f"k{k}", kind=kind)
        mod = ember.build(func, target="llvm")
        a = np.arange(100, dtype="float32")
        out = np.zeros_like(a)
        for _ in range(20):
            mod(a, out)
        assert mod.get_source("asm")
        return np.array_equal(out, a * np.float32(k) + 1)

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(work, range(8)))
