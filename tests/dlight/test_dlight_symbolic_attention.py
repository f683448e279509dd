"""dlight.cpu.Matmul with symbolic M *and* N (attention's ``Q @ K^T`` over a symbolic
sequence): rows and columns padded to whole tiles, B's clamped columns copied once per
panel, the accumulator compacted to one register tile; results against numpy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import te, tir
from ember.dlight import cpu
from ember.target import Target

TARGET = Target("llvm")


def _i64(v):
    return tir.const(v, "int64")


def _scores(heads: int, dim: int, scale: bool, batch_symbolic: bool = True):
    """``out[b, h, i, j] = sum_k q[b, h, i, k] * kt[b, h, k, j]`` (÷ scale), seq symbolic."""
    seq = te.var("seq", "int64")
    b = te.var("batch", "int64") if batch_symbolic else _i64(1)
    q = te.placeholder((b, _i64(heads), seq, _i64(dim)), name="Q")
    kt = te.placeholder((b, _i64(heads), _i64(dim), seq), name="KT")
    r = te.reduce_axis((_i64(0), _i64(dim)), name="k")
    c = te.compute((b, _i64(heads), seq, seq),
                   lambda n, h, i, j: te.sum(q[n, h, i, r] * kt[n, h, r, j], axis=r), name="C")
    out = te.compute(c.shape, lambda *ax: c(*ax) / 4.0, name="D") if scale else c
    return te.create_prim_func([q, kt, out])


def _build(func):
    sch = cpu.Matmul().apply(func, TARGET, False)
    assert sch is not None
    return sch, ember.build(sch.mod, target="llvm")


def _check(mod, batch, heads, seq, dim, scale, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((batch, heads, seq, dim)).astype("float32")
    kt = rng.standard_normal((batch, heads, dim, seq)).astype("float32")
    got = np.full((batch, heads, seq, seq), np.nan, "float32")
    mod(q, kt, got)
    want = q @ kt
    np.testing.assert_allclose(got, want / 4.0 if scale else want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("scale", [False, True])
def test_symbolic_rows_and_columns(scale):
    sch, mod = _build(_scores(3, 8, scale))
    text = sch.mod["main"].script()
    assert "_padcopy" in text and "_pad" in text
    for seq in (1, 4, 63, 64, 65, 130):
        _check(mod, 2, 3, seq, 8, scale, seed=seq)


def test_accumulator_is_one_register_tile():
    """Under the symbolic row loop the accumulator compacts to MR x NR (not the whole
    padded output), and no multiply-add carries a predicate."""
    from ember.tir.transform import lower_for_codegen

    sch, _ = _build(_scores(2, 16, True, batch_symbolic=False))
    lowered = lower_for_codegen(sch.mod, TARGET)["main"].script()
    local = [line for line in lowered.splitlines() if '"local")' in line and "T.allocate" in line]
    assert local and all("T.int64(256)" in line for line in local), local


@settings(max_examples=5, deadline=None)
@given(seq=st.integers(min_value=1, max_value=90), dim=st.integers(min_value=1, max_value=20),
       scale=st.booleans())
def test_symbolic_scores_property(seq, dim, scale):
    _, mod = _build(_scores(2, dim, scale))
    _check(mod, 1, 2, seq, dim, scale, seed=seq * 31 + dim)


def test_probabilities_times_values_symbolic_k():
    """``P[b, h, i, s] @ V[b, h, s, d]``: M and K symbolic, N static."""
    seq = te.var("seq", "int64")
    p = te.placeholder((_i64(1), _i64(2), seq, seq), name="P")
    v = te.placeholder((_i64(1), _i64(2), seq, _i64(24)), name="V")
    r = te.reduce_axis((_i64(0), seq), name="s")
    out = te.compute((_i64(1), _i64(2), seq, _i64(24)),
                     lambda n, h, i, d: te.sum(p[n, h, i, r] * v[n, h, r, d], axis=r), name="O")
    _, mod = _build(te.create_prim_func([p, v, out]))
    rng = np.random.default_rng(3)
    for s in (1, 5, 70):
        pv = rng.standard_normal((1, 2, s, s)).astype("float32")
        vv = rng.standard_normal((1, 2, s, 24)).astype("float32")
        got = np.zeros((1, 2, s, 24), "float32")
        mod(pv, vv, got)
        np.testing.assert_allclose(got, pv @ vv, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("rows", [8, 12, 16, None])
def test_wide_register_tile_for_three_vector_panels(rows):
    """N a multiple of 48 (AVX-512: 3 vectors): 8-row tiles where M allows (symbolic M is
    padded to 8 rows), 4-row tiles for other M; results unchanged, bias epilogue included."""
    m = te.var("m", "int64") if rows is None else _i64(rows)
    a = te.placeholder((m, _i64(40)), name="A")
    w = te.placeholder((_i64(40), _i64(96)), name="W")
    bias = te.placeholder((_i64(96),), name="bias")
    r = te.reduce_axis((_i64(0), _i64(40)), name="k")
    c = te.compute((m, _i64(96)), lambda i, j: te.sum(a[i, r] * w[r, j], axis=r), name="C")
    out = te.compute((m, _i64(96)), lambda i, j: c[i, j] + bias[j], name="D")
    _, mod = _build(te.create_prim_func([a, w, bias, out]))
    rng = np.random.default_rng(7)
    wv, bv = rng.standard_normal((40, 96)).astype("float32"), rng.standard_normal(96).astype("float32")
    for mv in ([rows] if rows is not None else [1, 7, 8, 9, 30]):
        av = rng.standard_normal((mv, 40)).astype("float32")
        got = np.zeros((mv, 96), "float32")
        mod(av, wv, bv, got)
        np.testing.assert_allclose(got, av @ wv + bv, rtol=1e-4, atol=1e-4)
