"""CUDA runtime pieces that work without a GPU: NVRTC, errors, the host launcher source."""

from __future__ import annotations

import pytest

import ember
from ember.runtime.cuda_driver import CUDAModule, KernelSpec, NVRTCError, compile_to_ptx, why_unavailable

from cuda_helpers import needs_nvrtc

KERNEL = 'extern "C" __global__ void fill(float* __restrict__ a, int n) { if (threadIdx.x < n) a[threadIdx.x] = 1.0f; }'


@needs_nvrtc
def test_nvrtc_compiles_and_caches():
    ptx = compile_to_ptx(KERNEL, "sm_80")
    assert ".entry fill" in ptx
    assert compile_to_ptx(KERNEL, "sm_80") is ptx  # cached by source hash


@needs_nvrtc
def test_nvrtc_error_carries_the_log():
    with pytest.raises(NVRTCError, match="identifier \"undefined_name\" is undefined"):
        compile_to_ptx(KERNEL.replace("1.0f", "undefined_name"), "sm_80")


def test_bad_arch_is_reported():
    with pytest.raises(ValueError, match="arch must look like 'sm_80', got 'volta'"):
        compile_to_ptx(KERNEL, "volta")


def test_kernel_spec_checks_types():
    with pytest.raises(ValueError, match="unsupported parameter type 'complex64'"):
        KernelSpec("k", ("handle", "complex64"))
    mod = CUDAModule(KERNEL, {"fill": KernelSpec("fill", ("handle", "int32"))})
    assert mod.get_source() == KERNEL
    with pytest.raises(ValueError, match="a CUDA module has 'cuda' and 'ptx'"):
        mod.get_source("ll")


@pytest.mark.skipif(ember.cuda().exist, reason="checks the no-GPU explanation")
def test_why_unavailable_without_gpu():
    assert "no CUDA GPU" in why_unavailable(0)
