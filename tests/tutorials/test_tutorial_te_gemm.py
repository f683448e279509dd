"""Tutorial: optimizing GEMM on CPU with the legacy TE schedule API, ``import ember as tvm``.

Each schedule variant of the classic tutorial (blocking, vectorization, loop permutation,
array packing, write cache, parallel) is built and checked against numpy; times are only
printed, never asserted.
"""

import numpy as np
import pytest

import ember as tvm
from ember import te

M = K = N = 128
BN = 32
KFACTOR = 4


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    dev = tvm.device("llvm", 0)
    a = tvm.nd.array(rng.random((M, K)).astype("float32"), dev)
    b = tvm.nd.array(rng.random((K, N)).astype("float32"), dev)
    return dev, a, b, a.numpy() @ b.numpy()


def _matmul():
    k = te.reduce_axis((0, K), "k")
    A = te.placeholder((M, K), name="A")
    B = te.placeholder((K, N), name="B")
    C = te.compute((M, N), lambda m, n: te.sum(A[m, k] * B[k, n], axis=k), name="C")
    return A, B, C


def _packed_matmul():
    k = te.reduce_axis((0, K), "k")
    A = te.placeholder((M, K), name="A")
    B = te.placeholder((K, N), name="B")
    packed_b = te.compute((N // BN, K, BN), lambda bn, kk, ln: B[kk, bn * BN + ln], name="packedB")
    C = te.compute(
        (M, N),
        lambda m, n: te.sum(A[m, k] * packed_b[n // BN, k, tvm.tir.indexmod(n, BN)], axis=k),
        name="C",
    )
    return A, B, C, packed_b


def _check(s, args, data, name):
    dev, a, b, answer = data
    func = tvm.build(s, args, target="llvm", name=name)
    c = tvm.nd.array(np.zeros((M, N), dtype="float32"), dev)
    func(a, b, c)
    tvm.testing.assert_allclose(c.numpy(), answer, rtol=1e-5)
    evaluator = func.time_evaluator(func.entry_name, dev, number=2)
    print(f"{name}: {evaluator(a, b, c).mean * 1e3:.3f} ms")


def _blocked(s, C, *, permute: bool):
    mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], BN, BN)
    (kaxis,) = s[C].op.reduce_axis
    ko, ki = s[C].split(kaxis, factor=KFACTOR)
    if permute:
        s[C].reorder(mo, no, ko, mi, ki, ni)
    else:
        s[C].reorder(mo, no, ko, ki, mi, ni)
    return mo, ni


def test_default(data):
    A, B, C = _matmul()
    _check(te.create_schedule(C.op), [A, B, C], data, "default")


def test_blocking_then_vectorize(data):
    A, B, C = _matmul()
    s = te.create_schedule(C.op)
    _, ni = _blocked(s, C, permute=False)
    _check(s, [A, B, C], data, "blocking")
    s[C].vectorize(ni)
    _check(s, [A, B, C], data, "vectorization")


def test_loop_permutation(data):
    A, B, C = _matmul()
    s = te.create_schedule(C.op)
    _, ni = _blocked(s, C, permute=True)
    s[C].vectorize(ni)
    _check(s, [A, B, C], data, "loop permutation")


def test_array_packing(data):
    A, B, C, packed_b = _packed_matmul()
    s = te.create_schedule(C.op)
    _, ni = _blocked(s, C, permute=True)
    s[C].vectorize(ni)
    big_n, _, little_n = s[packed_b].op.axis
    s[packed_b].vectorize(little_n)
    s[packed_b].parallel(big_n)
    _check(s, [A, B, C], data, "array packing")


def test_write_cache_and_parallel(data):
    A, B, C, packed_b = _packed_matmul()
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "global")
    mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], BN, BN)
    s[CC].compute_at(s[C], no)
    mc, nc = s[CC].op.axis
    (kaxis,) = s[CC].op.reduce_axis
    ko, ki = s[CC].split(kaxis, factor=KFACTOR)
    s[CC].reorder(ko, mc, ki, nc)
    s[CC].vectorize(nc)
    s[CC].unroll(ki)
    big_n, _, little_n = s[packed_b].op.axis
    s[packed_b].vectorize(little_n)
    s[packed_b].parallel(big_n)
    _check(s, [A, B, C], data, "write cache")
    s[C].parallel(mo)
    _check(s, [A, B, C], data, "parallel")
    text = str(tvm.lower(s, [A, B, C], simple_mode=True))
    assert "T.parallel" in text and "packedB" in text


def test_fuse_and_compute_at_elementwise(data):
    _, a, b, _ = data
    A = te.placeholder((M, N), name="A")
    B = te.compute((M, N), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((M, N), lambda i, j: B[i, j] + 1.0, name="C")
    s = te.create_schedule(C.op)
    fused = s[C].fuse(*C.op.axis)
    outer, inner = s[C].split(fused, factor=16)
    s[B].compute_at(s[C], outer)
    s[C].parallel(outer)
    func = tvm.build(s, [A, C], "llvm")
    c = tvm.nd.empty((M, N), "float32")
    func(a, c)
    tvm.testing.assert_allclose(c.numpy(), a.numpy() * 2 + 1, rtol=1e-6)
