"""``relax.build(mod, "cuda")``: a Relax MLP scheduled by dlight's GPU rules compiles to an
executable whose every kernel has PTX (NVRTC, no GPU needed); the VM refuses a missing
GPU or the wrong device clearly; unscheduled kernels say how to schedule them.  The
numerical check runs on a GPU (``gpu``-marked)."""

import numpy as np
import pytest

import ember
from ember import dlight, relax
from ember.dlight import gpu
from ember.relax.backend.gpu_kernels import UnscheduledKernelError
from ember.runtime.cuda_driver import CudaUnavailableError
from ember.target import Target

from relax_cuda_models import mlp_inputs, mlp_module, mlp_reference, needs_gpu, needs_nvrtc, no_gpu


def scheduled_mlp(target="cuda -arch=sm_80"):
    mod = relax.get_pipeline("zero")(mlp_module())
    with Target(target):
        return dlight.ApplyDefaultSchedule(*gpu.default_rules())(mod)


def _kernel_names(exe):
    return exe.kernels.device_module.kernels


@needs_nvrtc
def test_dlight_scheduled_mlp_builds_with_ptx_for_every_kernel():
    exe = relax.build(scheduled_mlp(), "cuda -arch=sm_80")
    assert exe.metadata["kernel_device"] == "cuda"
    ptx = exe.kernels.get_source("ptx")
    kernels = _kernel_names(exe)
    assert kernels
    for name in kernels:
        assert f".entry {name}(" in ptx, name
    called = {i.func for f in exe.functions.values() for i in f.instrs if hasattr(i, "func")}
    assert set(exe.kernels.function_names) <= called


@pytest.fixture(scope="module")
def auto_exe():
    return relax.build(mlp_module(), "cuda")  # legalized, fused and scheduled by relax.build itself


def test_relax_build_schedules_unscheduled_kernels_with_dlight_gpu(auto_exe):
    exe = auto_exe
    assert exe.kernels.type_key == "cuda_host"
    assert "__global__" in exe.kernels.get_source("cuda")


def test_ember_compile_with_a_cuda_target():
    exe = ember.compile(mlp_module(), target="cuda")
    assert isinstance(exe, relax.Executable) and exe.metadata["kernel_device"] == "cuda"


def test_unscheduled_kernels_say_to_apply_dlight_gpu():
    mod = relax.get_pipeline("zero")(mlp_module())
    with pytest.raises(UnscheduledKernelError, match=r"dlight\.gpu\.default_rules\(\)"):
        relax.build(mod, "cuda", default_schedule=False)


@pytest.mark.skipif(not no_gpu, reason="checks the error raised without a GPU")
def test_vm_on_cuda_without_a_gpu_raises_clearly(auto_exe):
    with pytest.raises(CudaUnavailableError, match=r"VirtualMachine on cuda\(0\): no usable GPU"):
        relax.VirtualMachine(auto_exe, ember.cuda())


def test_cpu_executable_refuses_a_cuda_vm():
    exe = relax.build(mlp_module(), "llvm")
    with pytest.raises(ValueError, match=r"built for cpu, but the VM was asked to run on cuda\(0\)"):
        relax.VirtualMachine(exe, ember.cuda())


@needs_gpu
@pytest.mark.parametrize("batch", [24, 1, 100])
def test_mlp_on_the_gpu_matches_numpy(batch):
    exe = relax.build(scheduled_mlp(), "cuda")
    dev = ember.cuda()
    vm = relax.VirtualMachine(exe, dev)
    x, w1, b1, w2 = mlp_inputs(batch)
    args = [ember.nd.array(x, device=dev), w1, ember.nd.array(b1), ember.nd.array(w2, device=dev)]
    out = vm["main"](*args)  # numpy and cpu inputs are copied to the GPU
    assert out.device == dev
    np.testing.assert_allclose(out.numpy(), mlp_reference(x, w1, b1, w2), rtol=1e-3, atol=1e-3)
    out = vm["main"](*args)  # a second run reuses the planned storages
    np.testing.assert_allclose(out.numpy(), mlp_reference(x, w1, b1, w2), rtol=1e-3, atol=1e-3)


@needs_gpu
def test_float16_mlp_on_the_gpu():
    mod = relax.get_pipeline("zero")(mlp_module(dtype="float16"))
    vm = relax.VirtualMachine(relax.build(mod, "cuda"), ember.cuda())
    x, w1, b1, w2 = mlp_inputs(32, "float16")
    out = vm["main"](x, w1, b1, w2).numpy()
    np.testing.assert_allclose(out.astype("float32"), mlp_reference(x, w1, b1, w2), rtol=3e-2, atol=3e-2)


@pytest.fixture(scope="module")
def f16_static_exe():
    return relax.build(mlp_module(batch=32, dtype="float16"), "cuda -arch=sm_80")


@needs_nvrtc
def test_static_float16_mlp_runs_its_matmuls_on_tensor_cores(f16_static_exe):
    ptx = f16_static_exe.kernels.get_source("ptx")
    kernels = _kernel_names(f16_static_exe)
    assert len(kernels) == 2  # matmul + bias + relu fused, then matmul
    assert ptx.count(".entry") == 2 and "wmma.mma.sync" in ptx


@needs_gpu
def test_static_float16_mlp_on_tensor_cores_matches_numpy(f16_static_exe):
    vm = relax.VirtualMachine(f16_static_exe, ember.cuda())
    x, w1, b1, w2 = mlp_inputs(32, "float16")
    out = vm["main"](x, w1, b1, w2).numpy()
    np.testing.assert_allclose(out.astype("float32"), mlp_reference(x, w1, b1, w2), rtol=3e-2, atol=3e-2)


def test_host_functions_are_built_for_the_cpu_next_to_the_kernels():
    from ember import te
    from ember.ir import GlobalVar
    from ember.relax.backend.gpu_kernels import build_gpu_kernels

    a = te.placeholder((256,), "float32", name="A")
    b = te.compute((256,), lambda i: a[i] + 1.0, name="B")
    sch = ember.tir.Schedule(te.create_prim_func([a, b]))
    xo, xi = sch.split(sch.get_loops(sch.get_block("B"))[0], factors=[None, 64])
    sch.bind(xo, "blockIdx.x")
    sch.bind(xi, "threadIdx.x")
    kernel = sch.mod["main"].with_attr("global_symbol", "add_one")
    host = te.create_prim_func([a, b]).with_attr("global_symbol", "add_one_host").with_attr("tir.is_host_func", True)
    mod = build_gpu_kernels({GlobalVar("add_one"): kernel, GlobalVar("add_one_host"): host}, ember.target.Target("cuda"))
    assert sorted(mod.function_names) == ["add_one", "add_one_host"]
    x, y = ember.nd.array(np.arange(256, dtype="float32")), ember.nd.empty((256,), "float32")
    mod["add_one_host"](x, y)  # the host function runs on the CPU
    np.testing.assert_allclose(y.numpy(), np.arange(256) + 1)
