"""Vectorised float32 exp/log/tanh/erf/sigmoid (ember/codegen/llvm/vector_math.py) against
numpy / math in float64, measured in ulps of the float32 result; specials (NaN, ±inf, 0,
subnormals) match libm."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember as tvm
from ember import te
from ember.codegen.llvm import vector_math

LANES = 16
_erf = np.vectorize(math.erf)
REFERENCE = {
    "exp": np.exp,
    "log": np.log,
    "tanh": np.tanh,
    "erf": _erf,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
}
# max error in float32 ulps of the exact result (erf near 0 also allows 2e-8 absolute)
MAX_ULP = {"exp": 2, "log": 2, "tanh": 3, "erf": 3, "sigmoid": 3}
RANGES = {
    "exp": (-105.0, 90.0),
    "log": (1e-30, 1e30),
    "tanh": (-12.0, 12.0),
    "erf": (-5.0, 5.0),
    "sigmoid": (-80.0, 100.0),  # LowerIntrin makes it 1/(1+exp(-x)): 0 once exp(-x) overflows
}


def _build(name: str, n: int):
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: getattr(te, name)(A[i]), name="B")
    func = te.create_prim_func([A, B])
    sch = tvm.tir.Schedule(func)
    (loop,) = sch.get_loops(sch.get_block("B"))
    _, inner = sch.split(loop, factors=[None, LANES])
    sch.vectorize(inner)
    return tvm.build(sch.mod, target="llvm")


def _run(mod, x: np.ndarray) -> np.ndarray:
    a = tvm.nd.array(x.astype("float32"))
    b = tvm.nd.array(np.zeros_like(x, dtype="float32"))
    mod(a, b)
    return b.numpy()


def _ulp_error(got: np.ndarray, exact: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        rounded = exact.astype("float32")  # overflow to inf: then got must be inf too
    finite = np.isfinite(rounded)
    ulp = np.spacing(np.abs(np.where(finite, rounded, 1))).astype("float64")
    ulp = np.maximum(ulp, np.float64(np.finfo("float32").smallest_subnormal))
    err = np.abs(got.astype("float64") - exact) / ulp
    return np.where(finite, err, np.where(got == rounded, 0.0, np.inf))


@pytest.fixture(params=["host", "portable"])
def scale_path(request, monkeypatch):
    """Both ways of building 2**n: the host's (``vscalefps`` on AVX-512) and the portable one
    from exponent bits, which every other CPU uses."""
    if request.param == "portable":
        monkeypatch.setattr(vector_math, "USE_AVX512_SCALEF", False)
    return request.param


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_vector_math_accuracy(name, scale_path):
    lo, hi = RANGES[name]
    rng = np.random.default_rng(0)
    n = 1 << 14
    if name == "log":
        x = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
        x[:64] = np.linspace(0.5, 2.0, 64)
    else:
        x = rng.uniform(lo, hi, n)
        x[:256] = np.linspace(-1.5, 1.5, 256)
    x = x.astype("float32")
    got = _run(_build(name, n), x)
    exact = REFERENCE[name](x.astype("float64"))
    err = _ulp_error(got, exact)
    if name == "erf":
        err = np.where(np.abs(got - exact) <= 2e-8, 0.0, err)
    worst = int(np.argmax(err))
    assert err[worst] <= MAX_ULP[name], f"{name}({x[worst]!r}) = {got[worst]!r}, want {exact[worst]!r}"


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_vector_math_special_values(name, scale_path):
    tiny = np.float32(1e-40)  # subnormal
    specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, tiny, -tiny, 1.0, -1.0, 88.5, -88.5, 87.0, -103.0,
                1e-20, 3.0e38, -3.0e38]
    x = np.array(specials * 1, dtype="float32")
    x = np.resize(x, LANES * 2)
    got = _run(_build(name, x.size), x)
    with np.errstate(all="ignore"):
        want = REFERENCE[name](x.astype("float64")).astype("float32")
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{name} NaNs for {x}")
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=1e-6, atol=1e-37, err_msg=f"{name} of {x[ok]}")


def test_vector_math_emits_no_libm_calls():
    source = _build("exp", 64).get_source("ll")
    assert "expf" not in source
    assert "ember.vmath" in source or "fmul" in source


def test_vector_exp_scales_with_vscalef_on_avx512():
    if tvm.target.Target("llvm").vector_width_bits < 512:
        pytest.skip("the host has no AVX-512")
    mod = _build("exp", 64)
    assert "llvm.x86.avx512.mask.scalef.ps.512" in mod.get_source("ll")
    assert "vscalefps" in mod.get_source("asm")
