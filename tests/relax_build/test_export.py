"""Executable.export_library and relax.load_executable: one shared library, loaded back."""

import numpy as np
import pytest
from relax_build_models import mlp_module, mlp_reference, mlp_weights

import ember
from ember import relax, topi
from ember.relax import BlockBuilder
load_executable = relax.load_executable


def test_round_trip_through_a_shared_library(tmp_path):
    w1, b1, w2 = mlp_weights()
    exe = relax.build(mlp_module(), params={"w1": w1})
    path = str(tmp_path / "mlp.so")
    exe.export_library(path)
    loaded = load_executable(path)
    assert loaded.stats() == exe.stats() == "1 VM functions, 22 instructions, 1 constants, 4 kernels"
    assert "storage0" in loaded.memory_plans["main"]
    vm = relax.VirtualMachine(loaded, ember.cpu())
    x = np.random.default_rng(0).standard_normal((3, 16), dtype="float32")
    np.testing.assert_allclose(vm["main"](x, b1, w2).numpy(), mlp_reference(x, w1, b1, w2), rtol=1e-4, atol=1e-4)


def test_program_without_kernels(tmp_path):
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([2], "float32"))
    with bb.function("main", [x]):
        bb.emit_func_output(relax.Tuple([x, relax.const(np.arange(3, dtype="int32"))]))
    path = str(tmp_path / "nokernels.so")
    relax.build(bb.get()).export_library(path)
    same, c = relax.VirtualMachine(load_executable(path), ember.cpu())["main"](np.ones(2, "float32"))
    np.testing.assert_allclose(same.numpy(), 1)
    np.testing.assert_array_equal(c.numpy(), [0, 1, 2])


def test_loading_a_kernel_library_is_refused(tmp_path):
    path = str(tmp_path / "kernels.so")
    relax.build(mlp_module()).kernels.export_library(path)
    with pytest.raises(ValueError, match="has no __ember_vm_program symbol; was it written by Executable"):
        load_executable(path)


_ = topi
