"""CUDA codegen: float16 / bfloat16 kernels, vector types, math intrinsics and fast math."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember import te, tir

from cuda_helpers import needs_cuda_headers, needs_gpu, needs_nvrtc, nvcc_ptx


def exp_mul_add(dtype: str, lanes: int, n: int = 1024, target: str = "cuda"):
    """C = exp(A) * B + A, split over blocks and threads, the innermost ``lanes`` vectorized."""
    A = te.placeholder((n,), dtype, name="A")
    B = te.placeholder((n,), dtype, name="B")
    C = te.compute((n,), lambda i: te.exp(A[i]) * B[i] + A[i], name="C")
    sch = tir.Schedule(te.create_prim_func([A, B, C]))
    (i,) = sch.get_loops(sch.get_block("C"))
    bx, tx, v = sch.split(i, [None, 64, lanes])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    sch.vectorize(v)
    return ember.build(sch.mod, target=target)


def copy_scaled(lanes: int, scale: float | None = 2.0, n: int = 1024):
    A = te.placeholder((n,), name="A")
    C = te.compute((n,), (lambda i: A[i] * scale) if scale is not None else (lambda i: A[i]), name="C")
    sch = tir.Schedule(te.create_prim_func([A, C]))
    (i,) = sch.get_loops(sch.get_block("C"))
    bx, tx, v = sch.split(i, [None, 64, lanes])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    sch.vectorize(v)
    return ember.build(sch.mod, target="cuda")


@pytest.mark.parametrize("dtype, header, ctype, vtype", [
    ("float16", "cuda_fp16.h", "half", "half2"),
    ("bfloat16", "cuda_bf16.h", "nv_bfloat16", "nv_bfloat162"),
])
def test_half_precision_source(dtype, header, ctype, vtype):
    src = exp_mul_add(dtype, 2).get_source("cuda")
    assert f"#include <{header}>" in src
    assert f"{ctype}* __restrict__ A" in src
    assert f"*({vtype}*)(C + " in src
    assert src.count(f"{vtype} A_vec = ") == 1  # A is read twice, loaded once
    assert "expf(((float)(" in src  # half math is computed in float32


@needs_nvrtc
@needs_cuda_headers
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_ptx(dtype, tmp_path):
    mod = exp_mul_add(dtype, 2)
    assert ".entry main_kernel" in mod.get_source("ptx")
    nvcc_ptx(mod.get_source("cuda"), tmp_path)


@needs_nvrtc
def test_float4_copy_and_store(tmp_path):
    src = copy_scaled(4, None).get_source("cuda")
    assert "*(float4*)(C + " in src and "(*(float4*)(A + " in src
    src = copy_scaled(4).get_source("cuda")
    assert "float4 A_vec = *(float4*)(A + " in src  # one vector load, used lane by lane
    assert "make_float4((A_vec.x * 2.0f), (A_vec.y * 2.0f)" in src
    nvcc_ptx(src, tmp_path)


def test_wide_vector_is_stored_per_lane():
    src = copy_scaled(8).get_source("cuda")
    assert "float8" not in src and "make_float" not in src
    assert src.count("] = (A[") == 8


def test_fast_math_uses_hardware_approximations():
    assert "__expf(" in exp_mul_add("float32", 1, target="cuda -fast-math").get_source("cuda")
    assert "__expf(" not in exp_mul_add("float32", 1).get_source("cuda")


@needs_gpu
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_exp_mul_add_numeric(dtype):
    mod = exp_mul_add(dtype, 2)
    dev = ember.cuda(0)
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, 1024).astype(dtype)
    b = rng.uniform(-1, 1, 1024).astype(dtype)
    c = ember.nd.empty((1024,), dtype, dev)
    mod(ember.nd.array(a, dev), ember.nd.array(b, dev), c)
    expected = np.exp(a.astype("float32")) * b.astype("float32") + a.astype("float32")
    np.testing.assert_allclose(c.numpy().astype("float32"), expected, rtol=2e-2 if dtype == "float16" else 1e-5,
                               atol=2e-2 if dtype == "float16" else 1e-6)
