"""Tutorial: working with operators using Tensor Expressions (TE), ``import ember as tvm``.

Vector add with a symbolic length under the legacy ``te.create_schedule`` API
(parallel, split + vectorize), ``tvm.lower(..., simple_mode=True)``, ``time_evaluator``,
exporting the library and loading it back with ``tvm.runtime.load_module``.
"""

import os

import numpy as np
import pytest

import ember as tvm
from ember import te


@pytest.fixture(scope="module")
def vector_add():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")
    return A, B, C


@pytest.fixture(scope="module")
def arrays(vector_add):
    A, B, C = vector_add
    dev = tvm.device("llvm", 0)
    rng = np.random.default_rng(0)
    a = tvm.nd.array(rng.uniform(size=1024).astype(A.dtype), dev)
    b = tvm.nd.array(rng.uniform(size=1024).astype(B.dtype), dev)
    c = tvm.nd.array(np.zeros(1024, dtype=C.dtype), dev)
    return dev, a, b, c


def test_default_schedule_runs_and_times(vector_add, arrays):
    A, B, C = vector_add
    dev, a, b, c = arrays
    target = tvm.target.Target(target="llvm", host="llvm")
    s = te.create_schedule(C.op)
    fadd = tvm.build(s, [A, B, C], target, name="myadd")
    fadd(a, b, c)
    tvm.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())
    evaluator = fadd.time_evaluator(fadd.entry_name, dev, number=10)
    assert evaluator(a, b, c).mean > 0


def test_lower_simple_mode_prints_loops(vector_add):
    A, B, C = vector_add
    s = te.create_schedule(C.op)
    s[C].parallel(C.op.axis[0])
    text = str(tvm.lower(s, [A, B, C], simple_mode=True))
    assert "T.parallel" in text and "C[i] = A[i] + B[i]" in text


def test_parallel_and_split_vectorize(vector_add, arrays):
    A, B, C = vector_add
    _, a, b, c = arrays
    s = te.create_schedule(C.op)
    s[C].parallel(C.op.axis[0])
    tvm.build(s, [A, B, C], "llvm", name="myadd_parallel")(a, b, c)
    tvm.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())

    s = te.create_schedule(C.op)
    outer, inner = s[C].split(C.op.axis[0], factor=4)
    s[C].parallel(outer)
    s[C].vectorize(inner)
    fadd = tvm.build(s, [A, B, C], "llvm", name="myadd_vector")
    c2 = tvm.nd.array(np.zeros(1023, dtype="float32"))  # not a multiple of the factor
    a2 = tvm.nd.array(a.numpy()[:1023])
    b2 = tvm.nd.array(b.numpy()[:1023])
    fadd(a2, b2, c2)
    tvm.testing.assert_allclose(c2.numpy(), a2.numpy() + b2.numpy())
    assert "define" in fadd.get_source()


def test_export_and_load_module(vector_add, arrays, tmp_path):
    A, B, C = vector_add
    _, a, b, _ = arrays
    s = te.create_schedule(C.op)
    fadd = tvm.build(s, [A, B, C], "llvm", name="myadd")
    path = os.path.join(tmp_path, "myadd.so")
    fadd.export_library(path)
    loaded = tvm.runtime.load_module(path)
    c = tvm.nd.array(np.zeros(1024, dtype="float32"))
    loaded["myadd"](a, b, c)
    tvm.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())


def test_load_module_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        tvm.runtime.load_module(os.path.join(tmp_path, "missing.so"))
    other = os.path.join(tmp_path, "model.json")
    with open(other, "w") as f:
        f.write("{}")
    with pytest.raises(ValueError, match="expected a shared library"):
        tvm.runtime.load_module(other)


def test_numpy_accepts_te_dtypes(vector_add):
    A, _, C = vector_add
    assert np.zeros(3, dtype=C.dtype).dtype == np.float32
    assert np.ones(2).astype(A.dtype).dtype == np.float32
    with pytest.raises(TypeError, match="no numpy equivalent"):
        np.dtype(tvm.DataType("float32x4"))


def test_wrong_argument_is_reported(vector_add, arrays):
    A, B, C = vector_add
    _, a, b, _ = arrays
    fadd = tvm.build(te.create_schedule(C.op), [A, B, C], "llvm", name="myadd")
    wrong = tvm.nd.array(np.zeros(1024, dtype="int32"))
    with pytest.raises(Exception, match="dtype|float32"):
        fadd(a, b, wrong)


def test_disable_vectorize_config():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * 2, name="B")
    s = te.create_schedule(B.op)
    _, inner = s[B].split(B.op.axis[0], factor=8)
    s[B].vectorize(inner)
    assert "T.Broadcast" in str(tvm.lower(s, [A, B]))  # vector code (indices print as slices)
    with tvm.transform.PassContext(config={"tir.disable_vectorize": True}):
        assert "T.Broadcast" not in str(tvm.lower(s, [A, B]))
        func = tvm.build(s, [A, B], "llvm")
    b = tvm.nd.empty((64,), "float32")
    func(tvm.nd.array(np.ones(64, "float32")), b)
    np.testing.assert_allclose(b.numpy(), 2.0)
