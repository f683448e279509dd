"""dlight.gpu end to end: ApplyDefaultSchedule with the GPU rules schedules every PrimFunc
of legalized Relax modules (MLP with a symbolic batch, softmax, layer norm, batched
matmul) with all global loops thread-bound; every scheduled kernel compiles to CUDA C and
to PTX with NVRTC (no GPU needed); numerical checks on a GPU are ``gpu``-marked."""

import numpy as np
import pytest

import ember
import gpu_workloads as w
from ember import dlight
from ember.dlight import gpu
from ember.dlight.gpu.common import unbound_global_loops
from ember.target import Target
from ember.tir import PrimFunc


def _have_nvrtc() -> bool:
    try:
        from cuda.bindings import nvrtc  # noqa: F401
    except ImportError:
        return False
    return True


needs_nvrtc = pytest.mark.skipif(not _have_nvrtc(), reason="NVRTC not installed (pip install 'ember[cuda]')")
RULES = (gpu.Matmul(), gpu.GEMV(), gpu.Reduction(), gpu.GeneralReduction(), gpu.Fallback())


def _schedule(mod, target="cuda"):
    with Target(target):
        return dlight.ApplyDefaultSchedule(*RULES)(mod)


@pytest.mark.parametrize("kind", ["mlp", "softmax", "layer_norm", "matmul"])
def test_relax_modules_fully_scheduled(kind):
    mod = _schedule(w.relax_module(kind))
    kernels = {gv.name_hint: f for gv, f in mod.functions.items() if isinstance(f, PrimFunc)}
    assert kernels
    for name, func in kernels.items():
        assert func.attrs.get(dlight.IS_SCHEDULED) is True, name
        assert unbound_global_loops(func) == [], name


def test_rule_choice(caplog):
    with caplog.at_level("DEBUG", logger="ember.dlight"):
        _schedule(w.relax_module("mlp"))
        _schedule(w.relax_module("softmax"))
    assert "matmul: scheduled by Matmul" in caplog.text
    assert "relu: scheduled by Fallback" in caplog.text
    assert "softmax: scheduled by GeneralReduction" in caplog.text


@needs_nvrtc
@pytest.mark.parametrize("make", [
    lambda: w.matmul(), lambda: w.matmul(m="m", epilogue="bias_relu"),
    lambda: w.matmul(dtype="float16"), lambda: w.matmul(m=1, n=512, k=256, transpose_b=True),
    lambda: w.softmax(rows="n"), lambda: w.layer_norm(), lambda: w.rms_norm(),
    lambda: w.transpose(), lambda: w.elementwise(),
])
def test_kernels_compile_to_ptx(make):
    mod = make()
    rules = gpu.default_rules()
    with Target("cuda -arch=sm_80"):
        mod = dlight.ApplyDefaultSchedule(*rules)(mod)
    rt = ember.build(mod, target="cuda -arch=sm_80")
    assert "__global__" in rt.get_source("cuda")
    assert ".entry" in rt.get_source("ptx")


@needs_nvrtc
@pytest.mark.parametrize("kind", ["mlp", "softmax", "layer_norm", "matmul"])
def test_relax_kernels_compile_to_ptx(kind):
    mod = _schedule(w.relax_module(kind), "cuda -arch=sm_80")
    for gv, func in mod.functions.items():
        if isinstance(func, PrimFunc):
            rt = ember.build(func, target="cuda -arch=sm_80")
            assert ".entry" in rt.get_source("ptx"), gv.name_hint


# ---------------------------------------------------------------- on a GPU

def _gpu():
    import torch

    if not ember.cuda().exist or not torch.cuda.is_available():
        pytest.skip("no CUDA GPU")
    return torch


@pytest.mark.gpu
def test_gpu_fp16_gemm_4096_vs_torch():
    torch = _gpu()
    n = 4096
    mod = _schedule(w.matmul(m=n, n=n, k=n, dtype="float16"))
    rt = ember.build(mod, target="cuda")
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    c = torch.empty(n, n, device="cuda", dtype=torch.float16)
    rt(a, b, c)
    ref = (a.float() @ b.float())
    err = (c.float() - ref).abs().max().item() / ref.abs().max().item()
    assert err < 2e-2


@pytest.mark.gpu
def test_gpu_softmax_4096_vs_torch():
    torch = _gpu()
    mod = _schedule(w.softmax(rows=4096, cols=4096))
    rt = ember.build(mod, target="cuda")
    x = torch.randn(4096, 4096, device="cuda")
    y = torch.empty_like(x)
    rt(x, y)
    np.testing.assert_allclose(y.cpu().numpy(), torch.softmax(x, -1).cpu().numpy(), rtol=1e-4, atol=1e-6)
