"""export_library of CUDA kernels (PTX embedded) — a Relax executable and a plain
``ember.build(..., "cuda")`` module — and ``load_module`` of it, in a fresh process
that imports the runtime only (no compiler).  Running the loaded kernels needs a GPU
(``gpu``-marked)."""

import json
import subprocess
import sys

import numpy as np
import pytest

import ember
from ember import relax
from ember.runtime.cuda_driver import CUDAHostModule

from relax_cuda_models import mlp_inputs, mlp_module, mlp_reference, needs_gpu, needs_nvrtc

_FRESH = """
import json, sys
import ember.runtime
from ember.runtime.vm import VirtualMachine
ex = ember.runtime.load_module(sys.argv[1])
kernels = ex.kernels
try:
    VirtualMachine(ex, ember.runtime.cuda())
    vm = "ok"
except Exception as err:
    vm = type(err).__name__ + ": " + str(err)
heavy = [m for m in sys.modules if m.startswith(("ember.relax", "ember.tir", "ember.te", "ember.codegen",
         "ember.driver", "ember.dlight", "ember.topi"))]
print(json.dumps({"type": type(kernels).__name__, "kernels": sorted(kernels.device_module.kernels),
                  "ptx": kernels.get_source("ptx"), "device": ex.metadata.get("kernel_device"), "vm": vm,
                  "heavy": heavy}))
"""


@pytest.fixture(scope="module")
def cuda_exe():
    return relax.build(mlp_module(), "cuda -arch=sm_80")


@needs_nvrtc
@pytest.mark.parametrize("ext", ["so", "tar"])
def test_executable_with_cuda_kernels_exports_and_loads_without_the_compiler(tmp_path, cuda_exe, ext):
    path = tmp_path / f"mlp_cuda.{ext}"
    entry = cuda_exe.export_library(str(path))
    assert entry.source is None and "cuda" in entry.reason  # no native C entry for GPU kernels
    done = subprocess.run([sys.executable, "-c", _FRESH, str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["heavy"] == []
    assert got["type"] == "CUDAHostModule" and got["device"] == "cuda"
    assert got["kernels"] == sorted(cuda_exe.kernels.device_module.kernels)
    for name in got["kernels"]:
        assert f".entry {name}(" in got["ptx"]
    assert got["ptx"] == cuda_exe.kernels.get_source("ptx")
    if not ember.cuda().exist:
        assert got["vm"].startswith("CudaUnavailableError: VirtualMachine on cuda(0): no usable GPU")


@needs_nvrtc
def test_plain_cuda_module_round_trips(tmp_path):
    from ember import te

    a = te.placeholder((1024,), "float32", name="A")
    b = te.compute((1024,), lambda i: a[i] * 2.0, name="B")
    sch = ember.tir.Schedule(te.create_prim_func([a, b]).with_attr("global_symbol", "double"))
    xo, xi = sch.split(sch.get_loops(sch.get_block("B"))[0], factors=[None, 128])
    sch.bind(xo, "blockIdx.x")
    sch.bind(xi, "threadIdx.x")
    mod = ember.build(sch.mod, target="cuda -arch=sm_80")
    mod.export_library(str(tmp_path / "double.so"))
    loaded = ember.runtime.load_module(str(tmp_path / "double.so"))
    assert isinstance(loaded, CUDAHostModule)
    assert loaded.function_names == mod.function_names
    assert loaded.get_source("cuda") == mod.get_source("cuda")
    assert ".entry" in loaded.get_source("ptx")
    assert loaded["double"].info == mod["double"].info
    with pytest.raises(ValueError, match="expected a .so, .o or .tar"):
        mod.export_library(str(tmp_path / "double.zip"))


def test_corrupt_cuda_blob_is_refused():
    from ember.runtime.cuda_driver.export import MAGIC, decode_cuda_module

    with pytest.raises(ValueError, match="not an ember CUDA module"):
        decode_cuda_module(b"garbage!")
    with pytest.raises(ValueError, match="the CUDA module is corrupt"):
        decode_cuda_module(MAGIC + b'{"host_source": 1}')


@needs_gpu
def test_loaded_executable_runs_on_the_gpu(tmp_path, cuda_exe):
    path = tmp_path / "mlp_cuda.so"
    relax.build(mlp_module(), "cuda").export_library(str(path))
    ex = ember.runtime.load_module(str(path))
    vm = relax.VirtualMachine(ex, ember.cuda())
    x, w1, b1, w2 = mlp_inputs(8)
    np.testing.assert_allclose(vm["main"](x, w1, b1, w2).numpy(), mlp_reference(x, w1, b1, w2),
                               rtol=1e-3, atol=1e-3)
