"""The VM on a device other than the CPU, checked without a GPU: a fake device type
(``ext_dev``) whose memory is host memory behind a DeviceAPI, and kernels that run the
LLVM kernels on that memory.  Covers what ``VirtualMachine(exe, ember.cuda())`` does
besides launching: storages allocated on the device (pooled per device), tensors carved
out of them at offsets, constants copied to the device once, cpu / numpy inputs copied
in, outputs left on the device, reshape as a view."""

import ctypes

import numpy as np
import pytest

import ember
from ember import relax, tir
from ember.runtime import Module
from ember.runtime.device import Device, DeviceType
from ember.runtime.device_api import register_device_api, remove_device_api
from ember.runtime.ndarray import NDArray

FAKE = DeviceType.EXT_DEV


class HostBackedAPI:
    """Device memory that is really host memory (so fake kernels can read it)."""

    def __init__(self):
        self.allocations = 0

    def exist(self, device_id):
        return device_id == 0

    def alloc(self, device_id, nbytes, alignment):
        self.allocations += 1
        raw = np.empty(nbytes + alignment, np.uint8)
        start = (-raw.ctypes.data) % alignment
        return raw.ctypes.data + start, raw

    def copy(self, dst, dst_device, src, src_device, nbytes):
        ctypes.memmove(dst, src, nbytes)

    def sync(self, device_id):
        pass


@pytest.fixture
def fake_api():
    api = HostBackedAPI()
    register_device_api(FAKE, api, override=True)
    yield api
    remove_device_api(FAKE)


def _cpu_view(arr: NDArray) -> NDArray:
    assert arr.device.device_type == FAKE, f"a kernel got an array on {arr.device}"
    return NDArray(arr.data_ptr, arr.shape, arr.dtype, ember.cpu(0), owner=arr)


def _on_fake_device(exe):
    """``exe`` with its kernels wrapped to take fake-device arrays (and refuse cpu ones)."""
    def wrap(fn):
        return lambda *args: fn(*(_cpu_view(a) if isinstance(a, NDArray) else a for a in args))

    functions = {name: wrap(exe.kernels[name]) for name in exe.kernels.function_names}
    exe.kernels = Module(functions, type_key="fake_dev")
    exe.metadata["kernel_device"] = "ext_dev"
    return exe


def _mlp(batch):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((batch, 16), "float32"))
    w2 = relax.Var("w2", relax.TensorStructInfo((32, 8), "float32"))
    w1 = relax.const(np.linspace(-1, 1, 16 * 32, dtype="float32").reshape(16, 32))
    with bb.function("main", [x, w2]):
        with bb.dataflow():
            h = bb.emit(relax.op.nn.relu(relax.op.matmul(x, w1)))
            h = bb.emit(relax.op.reshape(h, relax.ShapeExpr([batch * 2, 16])))
            h = bb.emit(relax.op.reshape(h, relax.ShapeExpr([batch, 32])))
            out = bb.emit_output(bb.emit(relax.op.matmul(h, w2)))
        bb.emit_func_output(out)
    return bb.get(), w1.data.numpy()


@pytest.mark.parametrize("batch", [4, "n"])
def test_vm_runs_with_device_memory(fake_api, batch):
    n = tir.Var("n", "int64") if batch == "n" else batch
    mod, w1 = _mlp(n)
    exe = _on_fake_device(relax.build(mod, "llvm"))
    dev = Device(FAKE, 0)
    vm = relax.VirtualMachine(exe, dev)
    assert all(c.device == dev for c in vm.constants if isinstance(c, NDArray))
    x = np.random.default_rng(0).standard_normal((4, 16)).astype("float32")
    w2 = np.random.default_rng(1).standard_normal((32, 8)).astype("float32")
    want = np.maximum(x @ w1, 0) @ w2
    out = vm["main"](x, ember.nd.array(w2))  # numpy and cpu NDArray inputs are copied in
    assert out.device == dev
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)
    stats = vm.allocator.stats
    before = stats.fresh_allocations
    out2 = vm["main"](ember.nd.array(x).copyto(dev), ember.nd.array(w2).copyto(dev))
    np.testing.assert_allclose(out2.numpy(), want, rtol=1e-4, atol=1e-4)
    assert stats.fresh_allocations == before  # the planned storages come back from the pool


def test_vm_refuses_arrays_of_another_device(fake_api):
    mod, _ = _mlp(4)
    exe = _on_fake_device(relax.build(mod, "llvm"))
    vm = relax.VirtualMachine(exe, Device(FAKE, 0))
    other = Device(DeviceType.VULKAN, 0)
    bogus = NDArray(0, (4, 16), "float32", other)
    with pytest.raises(ember.runtime.errors.ArgumentError, match=r"main: argument 'x' \(#1\): is on vulkan"):
        vm["main"](bogus, np.zeros((32, 8), "float32"))


def test_missing_device_is_refused(fake_api):
    mod, _ = _mlp(4)
    exe = _on_fake_device(relax.build(mod, "llvm"))
    with pytest.raises(RuntimeError, match=r"VirtualMachine on ext_dev\(1\)"):
        relax.VirtualMachine(exe, Device(FAKE, 1))
    with pytest.raises(TypeError, match="device #0 must be an ember Device"):
        relax.VirtualMachine(exe, [object()])
    assert relax.VirtualMachine(exe, "ext_dev").devices == [Device(FAKE, 0)]


def test_reshape_of_device_memory_is_a_view(fake_api):
    from ember.runtime.vm import builtins

    dev = Device(FAKE, 0)
    arr = ember.nd.array(np.arange(12, dtype="float32")).copyto(dev)
    view = builtins.reshape(arr, (3, 4))
    assert view.device == dev and view.data_ptr == arr.data_ptr and view.shape == (3, 4)
    np.testing.assert_array_equal(view.numpy(), np.arange(12, dtype="float32").reshape(3, 4))
    with pytest.raises(ember.runtime.errors.ArgumentError, match="cannot view a tensor of shape"):
        builtins.reshape(arr, (5, 4))
