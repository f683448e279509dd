"""Shared helpers for the CUDA code generator tests: skips and small kernels."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import ember
from ember import te
from ember.runtime.cuda_driver import find_cuda_include, nvrtc_available

needs_nvrtc = pytest.mark.skipif(not nvrtc_available(),
                                 reason="NVRTC is not installed (pip install 'ember[cuda]')")
needs_cuda_headers = pytest.mark.skipif(find_cuda_include() is None,
                                        reason="cuda_fp16.h / cuda_bf16.h not found (CUDA toolkit headers)")
_skip_without_gpu = pytest.mark.skipif(not ember.cuda().exist, reason="no CUDA GPU on this machine")


def needs_gpu(test):
    """Mark a test ``gpu`` (deselected by default) and skip it cleanly without a GPU."""
    return pytest.mark.gpu(_skip_without_gpu(test))


def nvcc_ptx(source: str, tmp_path, arch: str = "sm_80") -> None:
    """Also compile ``source`` with nvcc when it is installed (no GPU needed)."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return
    path = tmp_path / "k.cu"
    path.write_text(source)
    done = subprocess.run([nvcc, "-ptx", f"-arch={arch}", str(path), "-o", str(tmp_path / "k.ptx")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def vector_add_schedule(n: int = 1024, factor: int = 64, dtype: str = "float32"):
    """C = A + B with the classic stage API: split, blockIdx / threadIdx binding."""
    A = te.placeholder((n,), dtype, name="A")
    B = te.placeholder((n,), dtype, name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=factor)
    s[C].bind(xo, te.thread_axis("blockIdx.x"))
    s[C].bind(xi, te.thread_axis("threadIdx.x"))
    return s, [A, B, C]
