"""dlight's default GPU schedules through the CUDA code generator to PTX (no GPU needed)."""

from __future__ import annotations

import pytest

import ember
from ember import dlight as dl
from ember import te, topi
from ember.ir import IRModule
from ember.target import Target

from cuda_helpers import needs_nvrtc

TARGET = Target("cuda -arch=sm_80")


def _module(*tensors) -> IRModule:
    return IRModule({"main": te.create_prim_func(list(tensors)).with_attr("global_symbol", "main")})


def softmax():
    x = te.placeholder((64, 256), name="X")
    return _module(x, topi.nn.softmax(x, axis=-1))


def rms_norm():
    x = te.placeholder((64, 256), name="X")
    w = te.placeholder((256,), name="W")
    return _module(x, w, topi.nn.rms_norm(x, w, axis=[-1]))


def matmul():
    a = te.placeholder((256, 128), name="A")
    b = te.placeholder((128, 256), name="B")
    k = te.reduce_axis((0, 128), name="k")
    return _module(a, b, te.compute((256, 256), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C"))


@needs_nvrtc
@pytest.mark.parametrize("make", [softmax, rms_norm, matmul])
def test_default_gpu_schedule_compiles(make):
    with TARGET:
        mod = dl.ApplyDefaultSchedule(dl.gpu.Matmul(), dl.gpu.GEMV(), dl.gpu.Reduction(),
                                      dl.gpu.GeneralReduction(), dl.gpu.Fallback())(make())
    built = ember.build(mod, target=TARGET)
    ptx = built.get_source("ptx")
    assert ".entry main_kernel" in ptx
    if make is not matmul:  # row reductions combine partials across threads
        assert "bar.sync" in ptx or "shfl.sync" in ptx
