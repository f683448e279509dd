"""dlight.cpu.Matmul: many shapes (odd, batch 1, symbolic) against numpy; the trace's shape."""

import numpy as np
import pytest

import ember
from ember import te
from ember.dlight import cpu
from ember.target import Target

TARGET = Target("llvm")


def dense_relu(m, k, n, transposed_weight=False):
    """``relu(A @ W + bias)``; with ``transposed_weight`` W is stored (n, k) and read transposed."""
    a = te.placeholder((m, k), name="A")
    w = te.placeholder((n, k) if transposed_weight else (k, n), name="W")
    bias = te.placeholder((n,), name="bias")
    r = te.reduce_axis((0, k), name="k")
    if transposed_weight:
        c = te.compute((m, n), lambda i, j: te.sum(a[i, r] * w[j, r], axis=r), name="C")
    else:
        c = te.compute((m, n), lambda i, j: te.sum(a[i, r] * w[r, j], axis=r), name="C")
    d = te.compute((m, n), lambda i, j: te.max(c[i, j] + bias[j], 0.0), name="D")
    return te.create_prim_func([a, w, bias, d])


def matmul_only(m, k, n):
    a, b = te.placeholder((m, k), name="A"), te.placeholder((k, n), name="B")
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((m, n), lambda i, j: te.sum(a[i, r] * b[r, j], axis=r), name="C")
    return te.create_prim_func([a, b, c])


def batch_matmul(batch, m, k, n):
    a, b = te.placeholder((batch, m, k), name="A"), te.placeholder((batch, k, n), name="B")
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((batch, m, n), lambda q, i, j: te.sum(a[q, i, r] * b[q, r, j], axis=r), name="C")
    return te.create_prim_func([a, b, c])


def _run(func, *arrays, out_shape):
    sch = cpu.Matmul().apply(func, TARGET, False)
    assert sch is not None
    mod = ember.build(sch.mod, target="llvm")
    out = np.zeros(out_shape, "float32")
    mod(*arrays, out)
    return out, sch


@pytest.mark.parametrize("m,k,n", [(1, 784, 256), (32, 784, 256), (7, 33, 129), (1, 1, 1), (129, 7, 10),
                                   (4, 64, 64), (33, 5, 7)])
def test_dense_relu_matches_numpy(m, k, n):
    rng = np.random.default_rng(m * 1000 + n)
    a, w, b = (rng.standard_normal(s).astype("float32") for s in ((m, k), (k, n), (n,)))
    out, _ = _run(dense_relu(m, k, n), a, w, b, out_shape=(m, n))
    np.testing.assert_allclose(out, np.maximum(a @ w + b, 0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("m,k,n", [(5, 64, 33), (65, 17, 70), (2, 17, 9)])
def test_transposed_weight_is_packed_and_correct(m, k, n):
    rng = np.random.default_rng(1)
    a, w, b = (rng.standard_normal(s).astype("float32") for s in ((m, k), (n, k), (n,)))
    out, sch = _run(dense_relu(m, k, n, transposed_weight=True), a, w, b, out_shape=(m, n))
    np.testing.assert_allclose(out, np.maximum(a @ w.T + b, 0), rtol=1e-4, atol=1e-4)
    assert "transform_layout" in str(sch.trace)  # the weight panel


def test_plain_matmul_trace_has_register_tile():
    a = np.random.default_rng(2).standard_normal((64, 64)).astype("float32")
    out, sch = _run(matmul_only(64, 64, 64), a, a, out_shape=(64, 64))
    np.testing.assert_allclose(out, a @ a, rtol=1e-4, atol=1e-4)
    trace = str(sch.trace)
    for step in ("cache_write", "decompose_reduction", "vectorize", "parallel", "unroll"):
        assert step in trace


def test_batch_matmul():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((3, 5, 9)).astype("float32"), rng.standard_normal((3, 9, 17)).astype("float32")
    out, _ = _run(batch_matmul(3, 5, 9, 17), a, b, out_shape=(3, 5, 17))
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)


def test_symbolic_rows():
    m = te.var("m", "int64")
    func = dense_relu(m, 40, 24)
    rng = np.random.default_rng(4)
    sch = cpu.Matmul().apply(func, TARGET, False)
    mod = ember.build(sch.mod, target="llvm")
    w, b = rng.standard_normal((40, 24)).astype("float32"), rng.standard_normal(24).astype("float32")
    for rows in (1, 7, 33):
        a = rng.standard_normal((rows, 40)).astype("float32")
        out = np.zeros((rows, 24), "float32")
        mod(a, w, b, out)
        np.testing.assert_allclose(out, np.maximum(a @ w + b, 0), rtol=1e-4, atol=1e-4)


def test_declines_non_matmul_with_reason(caplog):
    x = te.placeholder((8, 8), name="X")
    y = te.compute((8, 8), lambda i, j: x[i, j] + 1.0, name="Y")
    with caplog.at_level("DEBUG", logger="ember.dlight"):
        assert cpu.Matmul().apply(te.create_prim_func([x, y]), TARGET, False) is None
    assert "Matmul does not apply" in caplog.text and "0 matmul-like blocks" in caplog.text


@pytest.mark.parametrize("m,k,n", [(1, 784, 256), (3, 48, 33), (2, 32, 5)])
def test_gemv_along_k_for_nt_weight(m, k, n):
    rng = np.random.default_rng(9)
    a, w, b = (rng.standard_normal(s).astype("float32") for s in ((m, k), (n, k), (n,)))
    out, sch = _run(dense_relu(m, k, n, transposed_weight=True), a, w, b, out_shape=(m, n))
    np.testing.assert_allclose(out, np.maximum(a @ w.T + b, 0), rtol=1e-4, atol=1e-4)
    assert "rfactor" in str(sch.trace)


@pytest.mark.parametrize("batch,seq,transposed", [(1, 9, False), (3, 5, False), (1, 1, True), (2, 3, True)])
def test_batched_rows_against_a_shared_weight(batch, seq, transposed):
    """x[b, s, k] @ w[k, n] (a Linear over a sequence): b and s are rows of A only; with
    topi's broadcast the unit batch dim is read at a constant 0 (normalised to the iterator)."""
    from ember.relax.transform.legalize_ops.linear_algebra import batch_matmul_broadcast

    x = te.placeholder((batch, seq, 32), name="X")
    if transposed:
        w_t = te.placeholder((48, 32), name="W")
        w = te.compute((32, 48), lambda k, n: w_t[n, k], name="W_T")
    else:
        w_t = w = te.placeholder((32, 48), name="W")
    out = batch_matmul_broadcast(x, w, (batch, seq, 48), "float32")
    x_func, w = x, w_t
    func = te.create_prim_func([x_func, w, out])
    sch = cpu.Matmul().apply(func, TARGET, False)
    assert sch is not None
    mod = ember.build(sch.mod, target="llvm")
    rng = np.random.default_rng(batch * 10 + seq)
    xv = rng.standard_normal((batch, seq, 32)).astype("float32")
    wv = rng.standard_normal((48, 32) if transposed else (32, 48)).astype("float32")
    got = np.zeros((batch, seq, 48), "float32")
    mod(xv, wv, got)
    np.testing.assert_allclose(got, xv @ (wv.T if transposed else wv), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("epilogue", [False, True])
def test_symbolic_rows_padded_to_tiles(transposed, epilogue):
    """int64 shapes as Relax legalises them; M symbolic: rows padded to whole MR tiles
    (dlight.cpu.pad_rows), the padding never reaches the output."""
    from ember import tir

    i64 = lambda v: tir.const(v, "int64")  # noqa: E731
    m = te.var("m", "int64")
    a = te.placeholder((m, i64(40)), name="A")
    w = te.placeholder((i64(24), i64(40)) if transposed else (i64(40), i64(24)), name="W")
    r = te.reduce_axis((i64(0), i64(40)), name="k")
    c = te.compute((m, i64(24)), lambda i, j: te.sum(a[i, r] * (w[j, r] if transposed else w[r, j]), axis=r),
                   name="C")
    out = te.compute((m, i64(24)), lambda i, j: te.max(c[i, j], 0.0), name="D") if epilogue else c
    sch = cpu.Matmul().apply(te.create_prim_func([a, w, out]), TARGET, False)
    assert "_pad" in sch.mod["main"].script()
    mod = ember.build(sch.mod, target="llvm")
    rng = np.random.default_rng(5)
    wv = rng.standard_normal((24, 40) if transposed else (40, 24)).astype("float32")
    for rows in (1, 6, 33):
        av = rng.standard_normal((rows, 40)).astype("float32")
        got = np.zeros((rows, 24), "float32")
        mod(av, wv, got)
        want = av @ (wv.T if transposed else wv)
        np.testing.assert_allclose(got, np.maximum(want, 0) if epilogue else want, rtol=1e-4, atol=1e-4)


def test_arithmetic_prologue_runs_once_per_element():
    """A normalisation feeding the matmul (layer norm's scale) stays its own loop nest:
    inlined, its rsqrt would run once per multiply-add."""
    a = te.placeholder((2, 48), name="A")
    s = te.placeholder((2,), name="S")
    w = te.placeholder((48, 40), name="W")
    norm = te.compute((2, 48), lambda i, k: a[i, k] * te.rsqrt(s[i] + 1.0), name="norm")
    r = te.reduce_axis((0, 48), name="k")
    c = te.compute((2, 40), lambda i, j: te.sum(norm[i, r] * w[r, j], axis=r), name="C")
    sch = cpu.Matmul().apply(te.create_prim_func([a, s, w, c]), TARGET, False)
    assert sch is not None and 'T.block("norm")' in sch.mod["main"].script()
    mod = ember.build(sch.mod, target="llvm")
    rng = np.random.default_rng(2)
    av, sv, wv = (rng.standard_normal(x).astype("float32") for x in ((2, 48), (2,), (48, 40)))
    sv = np.abs(sv)
    out = np.zeros((2, 40), "float32")
    mod(av, sv, wv, out)
    np.testing.assert_allclose(out, (av / np.sqrt(sv + 1.0)[:, None]) @ wv, rtol=1e-4, atol=1e-4)


def test_padded_tile_write_back_is_one_register_per_vector():
    """M symbolic: the epilogue reads the accumulator tile per row under a predicate, in whole
    vectors of the target's lanes (unrolled), not one tile-wide vector per row."""
    from ember import tir

    i64 = lambda v: tir.const(v, "int64")  # noqa: E731
    m = te.var("m", "int64")
    a = te.placeholder((m, i64(32)), name="A")
    w = te.placeholder((i64(32), i64(96)), name="W")
    bias = te.placeholder((i64(96),), name="bias")
    r = te.reduce_axis((i64(0), i64(32)), name="k")
    c = te.compute((m, i64(96)), lambda i, j: te.sum(a[i, r] * w[r, j], axis=r), name="C")
    d = te.compute((m, i64(96)), lambda i, j: te.max(c[i, j] + bias[j], 0.0), name="D")
    sch = cpu.Matmul().apply(te.create_prim_func([a, w, bias, d]), TARGET, False)
    lanes = max(1, TARGET.vector_width_bits // 32)
    loops = [sch.get(rv) for rv in sch.get_loops(sch.get_block("D"))]
    nr = 48 if lanes == 16 else 64
    assert int(loops[-1].extent) == lanes and loops[-1].kind == tir.ForKind.VECTORIZED
    assert int(loops[-2].extent) == nr // lanes and loops[-2].kind == tir.ForKind.UNROLLED
    mod = ember.build(sch.mod, target="llvm")
    rng = np.random.default_rng(7)
    wv, bv = rng.standard_normal((32, 96)).astype("float32"), rng.standard_normal(96).astype("float32")
    for rows in (1, 8, 13, 40):
        av = rng.standard_normal((rows, 32)).astype("float32")
        got = np.zeros((rows, 96), "float32")
        mod(av, wv, bv, got)
        np.testing.assert_allclose(got, np.maximum(av @ wv + bv, 0), rtol=1e-4, atol=1e-4)
