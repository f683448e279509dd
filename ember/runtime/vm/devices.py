"""The VM on a device other than the CPU (a GPU): checks, constants and inputs.

``relax.VirtualMachine(exe, ember.cuda())`` runs an executable whose kernels were built
for CUDA.  Creating it checks that the device is usable (a clear error otherwise: no
driver, no GPU, the missing Python package) and that the executable's kernels were built
for that kind of device (``exe.metadata["kernel_device"]``, written by ``relax.build``).
The constant pool is copied to the device once per VM; inputs that arrive on the CPU
(NDArrays, numpy arrays, nested in tuples) are copied to the device on each call, as
TVM's VM does; outputs stay on the device.
"""

from __future__ import annotations

from ..device import Device, DeviceType
from ..errors import ArgumentError
from ..ndarray import NDArray, array

__all__ = ["check_devices", "device_constants", "to_device", "KERNEL_DEVICE"]

# exe.metadata key: the device type name the kernels were compiled for ("cpu", "cuda")
KERNEL_DEVICE = "kernel_device"


def _unavailable(dev: Device) -> str | None:
    """Why ``dev`` cannot hold the VM's memory (None when it can)."""
    if dev.device_type == DeviceType.CPU:
        return None
    if dev.device_type == DeviceType.CUDA:
        from ..cuda_driver import why_unavailable

        return why_unavailable(dev.device_id)
    return None if dev.exist else f"device {dev} does not exist on this machine"


def check_devices(exe, devices: list) -> None:
    """Raise when the VM's first device cannot run ``exe`` (unusable, or the wrong kind)."""
    for index, dev in enumerate(devices):
        if not isinstance(dev, Device):
            raise TypeError(f"VirtualMachine: device #{index} must be an ember Device (ember.cpu(), "
                            f"ember.cuda()), got {type(dev).__name__}")
    dev = devices[0]
    built_for = (exe.metadata or {}).get(KERNEL_DEVICE, "cpu")
    if built_for != dev.type_name and not (built_for == "cpu" and dev.device_type == DeviceType.CPU):
        raise ValueError(
            f"VirtualMachine: the executable's kernels were built for {built_for}, but the VM was asked to run "
            f"on {dev}; build with relax.build(mod, target=\"{'llvm' if built_for == 'cpu' else built_for}\") "
            f"for this device, or create the VM on ember.{built_for}()")
    problem = _unavailable(dev)
    if problem is not None:
        if dev.device_type == DeviceType.CUDA:
            from ..cuda_driver import CudaUnavailableError

            raise CudaUnavailableError(f"VirtualMachine on {dev}: no usable GPU: {problem}")
        raise RuntimeError(f"VirtualMachine on {dev}: {problem}")


def device_constants(constants: list, dev: Device) -> list:
    """The constant pool with every NDArray on ``dev`` (the pool itself when ``dev`` is the CPU)."""
    if dev.device_type == DeviceType.CPU:
        return constants
    return [to_device(c, dev, "constant") for c in constants]


def to_device(value, dev: Device, what: str):
    """``value`` with its tensors on ``dev``: cpu NDArrays and numpy arrays copied there,
    tuples converted element by element, everything else unchanged."""
    if isinstance(value, NDArray):
        if value.device.device_type == dev.device_type and value.device.device_id == dev.device_id:
            return value
        if value.device.device_type not in (DeviceType.CPU, DeviceType.CUDA_HOST):
            raise ArgumentError(f"{what}: is on {value.device}, but the VM runs on {dev}; copy it to {dev} first "
                                f"(arr.copyto(ember.{dev.type_name}({dev.device_id})))")
        return value.copyto(dev) if value.is_contiguous else array(value.numpy(), device=dev)
    if isinstance(value, tuple | list):
        return tuple(to_device(v, dev, f"{what}[{i}]") for i, v in enumerate(value))
    if hasattr(value, "__array_interface__"):
        return array(value, device=dev)
    return value


def moving_inputs(name: str, params: tuple, inner, dev: Device):
    """``inner`` with its arguments moved to ``dev`` first."""

    def call(*args):
        return inner(*(to_device(a, dev, f"{name}: argument '{p}' (#{i + 1})")
                       for i, (a, p) in enumerate(zip(args, params))))

    return call
