"""dlight.gpu.Matmul on tensor cores: float16 / bfloat16 matmuls with static sizes that
are multiples of 16 are tensorized with the wmma intrinsics (PTX with ``wmma.mma.sync``,
no GPU needed); other matmuls keep the shared-memory schedule.  Numerical checks on a
GPU are ``gpu``-marked."""

import numpy as np
import pytest

import ember
import gpu_workloads as w
from ember import dlight
from ember.dlight import gpu
from ember.runtime.cuda_driver import find_cuda_include, nvrtc_available
from ember.target import Target

needs_nvrtc = pytest.mark.skipif(not nvrtc_available() or find_cuda_include() is None,
                                 reason="NVRTC or the CUDA headers (cuda_fp16.h, mma.h) are not installed")
needs_gpu = pytest.mark.skipif(not ember.cuda().exist, reason="no CUDA GPU on this machine")

TC_CASES = {
    "f16_f32": lambda: w.matmul(256, 256, 128, dtype="float16", out_dtype="float32"),
    "f16_f16": lambda: w.matmul(128, 128, 64, dtype="float16"),
    "batched_n96": lambda: w.matmul(128, 96, 64, dtype="float16", out_dtype="float32", batch=4),
    "bias_relu": lambda: w.matmul(128, 128, 64, dtype="float16", out_dtype="float32", epilogue="bias_relu"),
    "bf16_f32": lambda: w.matmul(128, 128, 64, dtype="bfloat16", out_dtype="float32"),
    "linear_b_nk": lambda: w.matmul(64, 128, 64, dtype="float16", out_dtype="float32", transpose_b=True),
}


def _schedule(mod, target="cuda -arch=sm_80", rules=None):
    with Target(target):
        return dlight.ApplyDefaultSchedule(*(rules or gpu.default_rules()))(mod)


def _uses_tensor_cores(mod) -> bool:
    return "wmma.accumulator" in mod.script()


@pytest.mark.parametrize("case", sorted(TC_CASES))
def test_eligible_matmuls_are_tensorized(case):
    assert _uses_tensor_cores(_schedule(TC_CASES[case]()))


@pytest.mark.parametrize("make,why", [
    (lambda: w.matmul("m", 128, 64, dtype="float16"), "symbolic M"),
    (lambda: w.matmul(200, 128, 64, dtype="float16"), "M not a multiple of 16"),
    (lambda: w.matmul(128, 128, 64, dtype="float32"), "float32"),
])
def test_other_matmuls_keep_the_shared_memory_schedule(make, why):
    mod = _schedule(make())
    assert not _uses_tensor_cores(mod), why
    assert "shared" in mod.script()


def test_tensor_cores_need_the_architecture_and_can_be_turned_off():
    assert not _uses_tensor_cores(_schedule(TC_CASES["f16_f32"](), "cuda -arch=sm_61"))
    assert not _uses_tensor_cores(_schedule(TC_CASES["bf16_f32"](), "cuda -arch=sm_75"))
    assert _uses_tensor_cores(_schedule(TC_CASES["f16_f32"](), "cuda -arch=sm_75"))
    rules = (gpu.Matmul(tensor_cores=False), gpu.Fallback())
    assert not _uses_tensor_cores(_schedule(TC_CASES["f16_f32"](), rules=rules))


def test_rule_logs_the_choice(caplog):
    with caplog.at_level("DEBUG", logger="ember.dlight"):
        _schedule(TC_CASES["f16_f32"]())
        _schedule(w.matmul("m", 128, 64, dtype="float16"))
    assert "Matmul: tensor cores (float16 -> float32, 2x2 warps of 2x2 fragments)" in caplog.text
    assert "no tensor cores: symbolic extents" in caplog.text


@needs_nvrtc
@pytest.mark.parametrize("case", ["f16_f32", "bias_relu", "batched_n96", "linear_b_nk"])
def test_tensorized_kernels_compile_to_wmma_ptx(case):
    rt = ember.build(_schedule(TC_CASES[case]()), target="cuda -arch=sm_80")
    ptx = rt.get_source("ptx")
    assert "wmma.mma.sync" in ptx and "wmma.load.a.sync" in ptx
    if case == "linear_b_nk":  # B stored (N, K): col_major fragments
        assert "wmma.load.b.sync.aligned.col" in ptx


def _inputs(case, mod):
    import ml_dtypes

    rng = np.random.default_rng(0)
    arrays = []
    for param in mod["main"].params[:-1]:
        buf = mod["main"].buffer_map[param]
        shape = tuple(int(s) for s in buf.shape)
        dtype = ml_dtypes.bfloat16 if str(buf.dtype) == "bfloat16" else str(buf.dtype)
        arrays.append(rng.uniform(-1, 1, shape).astype(dtype))
    return arrays


def _reference(case, arrays):
    f = [a.astype("float32") for a in arrays]
    out = f[0] @ (f[1].T if case == "linear_b_nk" else f[1])
    if case == "bias_relu":
        out = np.maximum(out + f[2], 0)
    return out


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("case", sorted(TC_CASES))
def test_tensorized_matmul_on_the_gpu(case):
    mod = TC_CASES[case]()
    arrays = _inputs(case, mod)
    out_buf = mod["main"].buffer_map[mod["main"].params[-1]]
    rt = ember.build(_schedule(mod, "cuda"), target="cuda")
    dev = ember.cuda()
    out = ember.nd.empty(tuple(int(s) for s in out_buf.shape), str(out_buf.dtype), dev)
    rt(*[ember.nd.array(a, device=dev) for a in arrays], out)
    np.testing.assert_allclose(out.numpy().astype("float32"), _reference(case, arrays), rtol=2e-2, atol=2e-2)
