"""CUDA codegen: vector add via the te stage API, source shape, PTX via NVRTC (no GPU needed)."""

from __future__ import annotations

import numpy as np

import ember
from ember import te
from ember.codegen.cuda import compile_to_ptx

from cuda_helpers import needs_gpu, needs_nvrtc, nvcc_ptx, vector_add_schedule


def test_vector_add_source_has_kernel_and_thread_indices():
    s, args = vector_add_schedule()
    mod = ember.build(s, args, target="cuda", name="vadd")
    src = mod.imported_modules[0].get_source()
    assert src == mod.get_source("cuda")
    assert 'extern "C" __global__ void __launch_bounds__(64) vadd_kernel(' in src
    assert "blockIdx.x" in src and "threadIdx.x" in src
    assert "float* __restrict__ A" in src
    host = mod.get_source()
    assert "_launch('vadd_kernel', _dev, (16, 1, 1), (64, 1, 1), 0," in host


@needs_nvrtc
def test_vector_add_compiles_to_ptx(tmp_path):
    s, args = vector_add_schedule()
    mod = ember.build(s, args, target="cuda -arch=sm_80", name="vadd")
    ptx = mod.get_source("ptx")
    assert ".entry vadd_kernel" in ptx and ".target sm_80" in ptx
    nvcc_ptx(mod.get_source("cuda"), tmp_path)


@needs_nvrtc
def test_compile_to_ptx_entry_point():
    s, args = vector_add_schedule()
    func = s.to_prim_func(args, name="vadd")
    assert ".entry vadd_kernel" in compile_to_ptx(func)


def test_symbolic_length_launch_uses_host_shape():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=128)
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[B].bind(xi, te.thread_axis("threadIdx.x"))
    mod = ember.build(s, [A, B], target="cuda", name="scale")
    host = mod.get_source()
    assert "A.shape[0]" in host
    src = mod.get_source("cuda")
    assert "int n" in src  # the length is a kernel parameter for the bound check
    assert "if (" in src


def test_source_formats_and_repr():
    s, args = vector_add_schedule()
    mod = ember.build(s, args, target="cuda")
    assert mod.source_formats == ["host", "cuda", "ptx"]
    assert "main_kernel" in repr(mod)


def two_stage(n=None):
    """B = A * 2 and C = B + 1, each stage its own kernel; B is a device scratch buffer."""
    n = n if n is not None else te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((n,), lambda i: B[i] + 1.0, name="C")
    s = te.create_schedule(C.op)
    for stage in (B, C):
        xo, xi = s[stage].split(stage.op.axis[0], factor=64)
        s[stage].bind(xo, te.thread_axis("blockIdx.x"))
        s[stage].bind(xi, te.thread_axis("threadIdx.x"))
    return ember.build(s, [A, C], target="cuda", name="two")


def test_two_kernels_and_a_device_scratch_buffer():
    mod = two_stage()
    assert set(mod.imported_modules[0].kernels) == {"two_kernel", "two_kernel_1"}
    host = mod.get_source()
    assert "B_mem = _alloc(_dev, (n) * 4)" in host
    assert host.index("_launch('two_kernel',") < host.index("_launch('two_kernel_1',")


@needs_gpu
def test_two_kernels_numeric():
    mod = two_stage()
    dev = ember.cuda(0)
    a = np.arange(1000, dtype="float32")
    c = ember.nd.empty((1000,), "float32", dev)
    mod(ember.nd.array(a, dev), c)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1)
