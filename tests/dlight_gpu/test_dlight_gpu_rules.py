"""dlight.gpu rules, structurally and numerically without a GPU: each rule schedules the
kernels it targets (static and symbolic sizes) and declines others; every loop touching
global memory is thread-bound; thread counts stay within the target's limits; traces
replay; the scheduled kernels compute what the originals do (TIR interpreter, which
runs thread loops serially)."""

import logging

import numpy as np
import pytest

import gpu_workloads as w
from ember import te, topi
from ember.dlight import gpu
from ember.dlight.gpu.common import thread_extents, unbound_global_loops
from ember.dlight.gpu.normalize import squeeze_intermediates
from ember.dlight.cpu.normalize import normalize_for_rules
from ember.target import Target
from ember.tir import interpreter
from ember.tir.schedule.testing import verify_trace_roundtrip

CUDA = Target("cuda")
H100 = Target("nvidia/nvidia-h100")


def _check(sch, target=CUDA):
    func = next(iter(sch.mod.functions.values()))
    assert unbound_global_loops(func) == []
    extents = thread_extents(func)
    assert any(tag.startswith("threadIdx") for tag in extents)
    threads = 1
    for tag, extent in extents.items():
        if tag.startswith("threadIdx"):
            threads *= extent
    assert 0 < threads <= target.max_num_threads
    return func


def _roundtrip(sch, func, *normalizers):
    for norm in normalizers:
        func = norm(func)
    verify_trace_roundtrip(sch, func)


def _same_result(orig, scheduled, shapes, seed=0):
    rng = np.random.default_rng(seed)
    args_a, args_b = [], []
    for shape, dtype, is_out in shapes:
        if is_out:
            args_a.append(np.zeros(shape, dtype))
            args_b.append(np.zeros(shape, dtype))
        else:
            x = rng.standard_normal(shape).astype(dtype)
            args_a.append(x)
            args_b.append(x.copy())
    interpreter.run(orig, *args_a)
    interpreter.run(scheduled, *args_b)
    for a, b in zip(args_a, args_b):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- Matmul

@pytest.mark.parametrize("kwargs", [
    dict(), dict(m="m"), dict(epilogue="bias_relu"), dict(m="m", epilogue="bias_relu"),
    dict(batch=3, transpose_b=True), dict(dtype="float16", out_dtype="float32"),
    dict(m=100, n=72, k=40),
])
def test_matmul_applies(kwargs):
    mod = w.matmul(**kwargs)
    sch = gpu.Matmul().apply(mod["main"], CUDA, False)
    assert sch is not None
    func = _check(sch)
    _roundtrip(sch, mod["main"], normalize_for_rules)
    scopes = {b.scope() for b in _allocs(func)}
    tensor_cores = kwargs.get("dtype") == "float16"  # 256x256x128 float16: wmma (test_dlight_gpu_tensor_core.py)
    assert {"shared", "wmma.accumulator" if tensor_cores else "local"} <= scopes


def _allocs(func):
    return func.body.block.alloc_buffers


def test_matmul_computes_the_same():
    # small tiles keep the interpreter fast (it runs every thread's cooperative fetch)
    rule = gpu.Matmul(gpu.MatmulConfig(ty=2, tx=2, mi=2, nj=2, k=4))
    mod = w.matmul(m=18, n=10, k=9, epilogue="bias_relu")
    sch = rule.apply(mod["main"], CUDA, False)
    _same_result(mod["main"], sch.mod["main"], [((18, 9), "float32", False), ((9, 10), "float32", False),
                                                 ((10,), "float32", False), ((18, 10), "float32", True)])


def test_matmul_declines_gemv_and_non_matmuls():
    assert gpu.Matmul().apply(w.matmul(m=1, n=256, k=64)["main"], CUDA, False) is None
    assert gpu.Matmul().apply(w.softmax()["main"], CUDA, False) is None
    assert gpu.Matmul().apply(w.elementwise()["main"], CUDA, False) is None
    assert gpu.Matmul().apply(w.matmul()["main"], Target("llvm"), False) is None


# ---------------------------------------------------------------- GEMV

@pytest.mark.parametrize("transpose_b", [True, False])
@pytest.mark.parametrize("epilogue", [None, "bias_relu"])
def test_gemv(transpose_b, epilogue):
    mod = w.matmul(m=1, n=96, k=80, transpose_b=transpose_b, epilogue=epilogue)
    sch = gpu.GEMV().apply(mod["main"], CUDA, False)
    assert sch is not None
    _check(sch)
    _roundtrip(sch, mod["main"], normalize_for_rules)
    shapes = [((1, 80), "float32", False), ((96, 80) if transpose_b else (80, 96), "float32", False)]
    if epilogue:
        shapes.append(((96,), "float32", False))
    shapes.append(((1, 96), "float32", True))
    _same_result(mod["main"], sch.mod["main"], shapes)


def test_gemv_declines_big_and_symbolic_rows():
    assert gpu.GEMV().apply(w.matmul()["main"], CUDA, False) is None
    assert gpu.GEMV().apply(w.matmul(m="m")["main"], CUDA, False) is None


# ---------------------------------------------------------------- reductions

@pytest.mark.parametrize("make", [w.softmax, w.layer_norm, w.rms_norm, w.row_sum])
@pytest.mark.parametrize("rows", [16, "n"])
def test_general_reduction(make, rows):
    mod = make(rows=rows, cols=300)
    sch = gpu.GeneralReduction().apply(mod["main"], CUDA, False)
    assert sch is not None
    func = _check(sch)
    _roundtrip(sch, mod["main"], squeeze_intermediates)
    assert thread_extents(func)["threadIdx.x"] == 256


@pytest.mark.parametrize("make, extra", [(w.softmax, []), (w.layer_norm, [(40,), (40,)]), (w.rms_norm, [(40,)])])
def test_general_reduction_computes_the_same(make, extra):
    mod = make(rows=6, cols=40)
    sch = gpu.GeneralReduction().apply(mod["main"], CUDA, False)
    assert thread_extents(sch.mod["main"])["threadIdx.x"] <= 64  # a short row: fewer threads
    shapes = [((6, 40), "float32", False)] + [(s, "float32", False) for s in extra] + [((6, 40), "float32", True)]
    _same_result(mod["main"], sch.mod["main"], shapes)


def test_rmsnorm_only_takes_rms_norm():
    assert gpu.RMSNorm().apply(w.rms_norm()["main"], CUDA, False) is not None
    assert gpu.RMSNorm().apply(w.softmax()["main"], CUDA, False) is None
    assert gpu.RMSNorm().apply(w.layer_norm()["main"], CUDA, False) is None


def test_reduction_layouts():
    x = te.placeholder((48, 70), name="X")
    for out, shape in ((topi.sum(x, axis=[0]), (70,)), (topi.sum(x, axis=[1]), (48,)), (topi.sum(x), ())):
        mod = w.prim(x, out)
        sch = gpu.Reduction().apply(mod["main"], CUDA, False)
        assert sch is not None
        _check(sch)
        _roundtrip(sch, mod["main"], squeeze_intermediates)
        _same_result(mod["main"], sch.mod["main"], [((48, 70), "float32", False), (shape, "float32", True)])
    assert gpu.Reduction().apply(w.softmax()["main"], CUDA, False) is None  # two reductions


# ---------------------------------------------------------------- Transpose, Fallback

def test_transpose():
    mod = w.transpose(rows=64, cols=96)
    sch = gpu.Transpose().apply(mod["main"], CUDA, False)
    assert sch is not None
    func = _check(sch)
    _roundtrip(sch, mod["main"])
    assert any(b.scope() == "shared" for b in _allocs(func))
    _same_result(mod["main"], func, [((64, 96), "float32", False), ((96, 64), "float32", True)])
    assert gpu.Transpose().apply(w.elementwise()["main"], CUDA, False) is None


@pytest.mark.parametrize("make", [w.elementwise, w.softmax, w.layer_norm, w.matmul])
def test_fallback_binds_everything(make):
    mod = make()
    sch = gpu.Fallback().apply(mod["main"], CUDA, False)
    func = _check(sch)
    _roundtrip(sch, mod["main"])
    assert thread_extents(func)["threadIdx.x"] <= 1024


def test_fallback_computes_the_same():
    mod = w.softmax(rows=5, cols=33)
    sch = gpu.Fallback().apply(mod["main"], CUDA, False)
    _same_result(mod["main"], sch.mod["main"], [((5, 33), "float32", False), ((5, 33), "float32", True)])


def test_target_limits_respected():
    small = Target("cuda -max_num_threads=128")
    for mod, rule in ((w.matmul(), gpu.Matmul()), (w.softmax(), gpu.GeneralReduction()),
                      (w.elementwise(), gpu.Fallback())):
        sch = rule.apply(mod["main"], small, False)
        _check(sch, small)
    assert gpu.Matmul().apply(w.matmul()["main"], H100, False) is not None


def test_decline_reasons_are_logged(caplog):
    with caplog.at_level(logging.DEBUG, logger="ember.dlight"):
        gpu.Matmul().apply(w.softmax()["main"], CUDA, False)
    assert "Matmul does not apply" in caplog.text
