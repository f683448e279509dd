"""Tensor-core intrinsics (``ember.tir.tensor_intrin.cuda``) with ``sch.tensorize``: a
float16 GEMM scheduled by hand (warps over 2x2 fragments, shared-memory tiles) lowers to
fragments compacted per warp and compiles to CUDA C with ``nvcuda::wmma`` and PTX with
``wmma.mma.sync``; on a GPU it matches numpy (``gpu``-marked)."""

import numpy as np
import pytest

import ember
import gpu_workloads as w
from ember.runtime.cuda_driver import find_cuda_include, nvrtc_available
from ember.tir import Schedule, TensorIntrin
from ember.tir.schedule import ScheduleError
from ember.tir.tensor_intrin import cuda as tc

needs_nvrtc = pytest.mark.skipif(not nvrtc_available() or find_cuda_include() is None,
                                 reason="NVRTC or the CUDA headers (cuda_fp16.h, mma.h) are not installed")
needs_gpu = pytest.mark.skipif(not ember.cuda().exist, reason="no CUDA GPU on this machine")


def wmma_gemm(m=128, n=128, k=64, dtype="float16", out_dtype="float32"):
    """C = A @ B on tensor cores: 2x2 warps per block, 2x2 fragments per warp, k tiles of 32."""
    sch = Schedule(w.matmul(m, n, k, dtype=dtype, out_dtype=out_dtype))
    blk = sch.get_block("C")
    i, j, kk = sch.get_loops(blk)
    i0, i1, i2, i3 = sch.split(i, [None, 2, 2, 16])
    j0, j1, j2, j3 = sch.split(j, [None, 2, 2, 16])
    k0, k1, k2 = sch.split(kk, [None, 2, 16])
    sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2, i3, j3, k2)
    sch.bind(i0, "blockIdx.y")
    sch.bind(j0, "blockIdx.x")
    sch.bind(i1, "threadIdx.y")
    sch.bind(j1, "threadIdx.z")
    acc = sch.cache_write(blk, 0, "wmma.accumulator")
    sch.reverse_compute_at(acc, j1)
    frags = []
    for index, scope in ((0, "wmma.matrix_a"), (1, "wmma.matrix_b")):
        shared = sch.cache_read(blk, index, "shared")
        sch.compute_at(shared, k0)
        fused = sch.fuse(*sch.get_loops(shared)[-2:])
        _, ty, tz, tx, vec = sch.split(fused, [None, 2, 2, 32, 8])
        sch.bind(ty, "threadIdx.y")
        sch.bind(tz, "threadIdx.z")
        sch.bind(tx, "threadIdx.x")
        sch.vectorize(vec)
        frag = sch.cache_read(blk, index, scope)
        try:
            sch.compute_at(frag, k1)
        except ScheduleError:  # already there
            pass
        frags.append(frag)

    def tile16(block, intrin):
        a, b = sch.get_loops(block)[-2:]
        a0, a1 = sch.split(a, [None, 16])
        b0, b1 = sch.split(b, [None, 16])
        sch.reorder(a0, b0, a1, b1)
        sch.tensorize(a1, intrin)

    tile16(frags[0], tc.get_wmma_load_intrin(dtype, "a"))
    tile16(frags[1], tc.get_wmma_load_intrin(dtype, "b"))
    init = sch.decompose_reduction(blk, k0)
    sch.tensorize(sch.get_loops(init)[-2], tc.get_wmma_fill_intrin(out_dtype))
    sch.tensorize(sch.get_loops(blk)[-3], tc.get_wmma_sync_intrin(dtype, out_dtype))
    tile16(acc, tc.get_wmma_store_intrin(out_dtype, "global"))
    return sch.mod


def test_intrinsics_are_registered_under_tvm_names():
    names = tc.wmma_intrin_names()
    for name in ("wmma_load_16x16x16_f16_a_shared", "wmma_load_16x16x16_f16_b_shared_dyn",
                 "wmma_sync_16x16x16_f16f16f32", "wmma_sync_16x16x16_bf16bf16f32", "wmma_sync_16x16x16_f16f16f16",
                 "wmma_fill_16x16x16_f32", "wmma_store_16x16x16_f32_global", "wmma_store_16x16x16_f16_shared",
                 "wmma_load_16x16x16_f16_b_trans_shared", "wmma_sync_16x16x16_f16f16f32_trans"):
        assert name in names
        assert TensorIntrin.get(name) is not None
    assert tc.WMMA_SYNC_16x16x16_f16f16f32_INTRIN == "wmma_sync_16x16x16_f16f16f32"
    assert tc.WMMA_LOAD_16x16x16_F16_B_TRANS_INTRIN == "wmma_load_16x16x16_f16_b_trans_shared"
    assert tc.get_wmma_intrin_group("shared", "global", "float16", "float32", trans_b=True) == {
        "init": "wmma_fill_16x16x16_f32", "load_a": "wmma_load_16x16x16_f16_a_shared",
        "load_b": "wmma_load_16x16x16_f16_b_trans_shared", "compute": "wmma_sync_16x16x16_f16f16f32_trans",
        "store": "wmma_store_16x16x16_f32_global"}
    with pytest.raises(ValueError, match="no tensor-core intrinsic for float32 inputs"):
        tc.get_wmma_sync_intrin("float32", "float32")
    with pytest.raises(ValueError, match="operand must be 'a' or 'b'"):
        tc.get_wmma_load_intrin("float16", "c")


def test_tensorize_refuses_a_non_matching_block():
    sch = Schedule(w.matmul(64, 64, 64, dtype="float32"))
    blk = sch.get_block("C")
    i, j, k = sch.get_loops(blk)
    sch.split(i, [None, 16])
    sch.split(j, [None, 16])
    sch.split(k, [None, 16])
    i0, i1, j0, j1, k0, k1 = sch.get_loops(blk)
    sch.reorder(i0, j0, k0, i1, j1, k1)
    with pytest.raises(ScheduleError, match="does not match the description"):
        sch.tensorize(i1, tc.get_wmma_sync_intrin("float16", "float32"))


def test_fragments_are_compacted_per_warp():
    lowered = ember.lower(wmma_gemm(), target="cuda -arch=sm_80").script()
    assert 'T.allocate([1024], "float32", "wmma.accumulator")' in lowered  # 2x2 fragments per warp
    assert 'T.allocate([512], "float16", "wmma.matrix_a")' in lowered
    assert 'T.allocate([2048], "float16", "shared")' in lowered  # a 64x32 tile of A, not all of A


@needs_nvrtc
@pytest.mark.parametrize("dtype,out_dtype", [("float16", "float32"), ("float16", "float16"),
                                             ("bfloat16", "float32")])
def test_tensorized_gemm_compiles_to_wmma(dtype, out_dtype):
    rt = ember.build(wmma_gemm(dtype=dtype, out_dtype=out_dtype), target="cuda -arch=sm_80")
    cuda = rt.get_source("cuda")
    assert "#include <mma.h>" in cuda
    assert "nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16" in cuda
    assert "nvcuda::wmma::mma_sync(" in cuda
    ptx = rt.get_source("ptx")
    assert "wmma.mma.sync" in ptx and "wmma.load.a.sync" in ptx and "wmma.store.d.sync" in ptx


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dtype,out_dtype", [("float16", "float32"), ("bfloat16", "float32")])
def test_tensorized_gemm_on_the_gpu(dtype, out_dtype):
    import ml_dtypes

    rt = ember.build(wmma_gemm(256, 128, 128, dtype=dtype, out_dtype=out_dtype), target="cuda")
    np_dtype = np.float16 if dtype == "float16" else ml_dtypes.bfloat16
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (256, 128)).astype(np_dtype)
    b = rng.uniform(-1, 1, (128, 128)).astype(np_dtype)
    dev = ember.cuda()
    c = ember.nd.empty((256, 128), out_dtype, dev)
    rt(ember.nd.array(a, device=dev), ember.nd.array(b, device=dev), c)
    want = a.astype("float32") @ b.astype("float32")
    np.testing.assert_allclose(c.numpy().astype("float32"), want, rtol=1e-2, atol=1e-2)
