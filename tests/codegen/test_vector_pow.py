"""Vectorised float32 pow (ember/codegen/llvm/vector_math.py): accuracy against float64 numpy
within 3 + 2·|y·ln x| ulp, every special value of C's powf (signs, NaN, ±inf, ±0, integer and
fractional exponents), and no per-lane libm call in the generated code."""

from __future__ import annotations

import numpy as np

import ember as tvm
from ember import te

LANES = 16


def _build(n: int):
    a = te.placeholder((n,), "float32", name="A")
    b = te.placeholder((n,), "float32", name="B")
    c = te.compute((n,), lambda i: te.power(a[i], b[i]), name="C")
    sch = tvm.tir.Schedule(te.create_prim_func([a, b, c]))
    (loop,) = sch.get_loops(sch.get_block("C"))
    _, inner = sch.split(loop, factors=[None, LANES])
    sch.vectorize(inner)
    return tvm.build(sch.mod, target="llvm")


def _run(mod, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = tvm.nd.array(np.zeros(x.size, "float32"))
    mod(tvm.nd.array(x.astype("float32")), tvm.nd.array(y.astype("float32")), out)
    return out.numpy()


def _ulps(got: np.ndarray, exact: np.ndarray) -> np.ndarray:
    ulp = np.spacing(np.abs(exact.astype("float32"))).astype("float64")
    ulp = np.maximum(ulp, np.float64(np.finfo("float32").smallest_subnormal))
    return np.abs(got.astype("float64") - exact) / ulp


def test_vector_pow_accuracy():
    rng = np.random.default_rng(0)
    n = 1 << 13
    x = np.exp(rng.uniform(-20.0, 20.0, n)).astype("float32")
    y = rng.uniform(-3.0, 3.0, n).astype("float32")
    x[:1024] = rng.uniform(1.0, 3.0, 1024)  # LRN: (bias + alpha/size * sum of squares) ** 0.75
    y[:1024] = 0.75
    x[1024:1536] = -np.round(rng.uniform(1.0, 6.0, 512))  # negative bases, integer exponents
    y[1024:1536] = np.round(rng.uniform(-9.0, 9.0, 512))
    got = _run(_build(n), x, y)
    exact = np.power(x.astype("float64"), y.astype("float64"))
    allowed = 3.0 + 2.0 * np.abs(y * np.log(np.abs(x.astype("float64"))))
    err = _ulps(got, exact)
    worst = int(np.argmax(err / allowed))
    assert err[worst] <= allowed[worst], f"pow({x[worst]!r}, {y[worst]!r}) = {got[worst]!r}, want {exact[worst]!r}"
    assert _ulps(got[:1024], exact[:1024]).max() <= 5


def test_vector_pow_special_values_match_libm():
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0,
                         1e-40, 3e38, -3e38], "float32")
    x, y = (a.ravel() for a in np.meshgrid(specials, specials))
    got = _run(_build(x.size), x, y)
    with np.errstate(all="ignore"):
        want = np.power(x, y)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"NaNs of pow({x}, {y})")
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(want[ok]))
    np.testing.assert_allclose(got[ok], want[ok], rtol=2e-6, atol=0)


def test_vector_pow_emits_no_libm_calls():
    source = _build(64).get_source("ll")
    assert "powf" not in source and "llvm.pow" not in source
