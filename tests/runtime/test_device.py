"""Devices: names, type codes, equality, existence."""

import pytest

from ember import runtime
from ember.runtime import Device


def test_factories_and_codes():
    cases = [
        (runtime.cpu(), 1, "cpu(0)"),
        (runtime.cuda(1), 2, "cuda(1)"),
        (runtime.gpu(), 2, "cuda(0)"),
        (runtime.opencl(), 4, "opencl(0)"),
        (runtime.vulkan(), 7, "vulkan(0)"),
        (runtime.metal(), 8, "metal(0)"),
        (runtime.rocm(2), 10, "rocm(2)"),
    ]
    for dev, code, text in cases:
        assert dev.device_type == code
        assert str(dev) == text
        assert repr(dev) == text


def test_device_by_name():
    assert runtime.device("cpu") == runtime.cpu(0)
    assert runtime.device("llvm", 0) == runtime.cpu(0)
    assert runtime.device("cuda", 1) == runtime.cuda(1)
    assert runtime.device("gpu") == runtime.cuda(0)
    assert runtime.device("metal") == runtime.metal()
    assert runtime.device("vulkan") == runtime.vulkan()
    assert runtime.device("cuda -arch=sm_80") == runtime.cuda(0)
    assert runtime.device("cuda:3") == runtime.cuda(3)
    assert runtime.device(2, 1) == runtime.cuda(1)
    assert runtime.device(runtime.cpu()) == runtime.cpu()


def test_unknown_name_lists_valid_ones():
    with pytest.raises(ValueError, match=r"unknown device name 'tpu'.*cpu.*cuda.*vulkan"):
        runtime.device("tpu")


def test_bad_fields():
    with pytest.raises(ValueError, match="device_id must be a non-negative int, got -1"):
        Device(1, -1)


def test_equality_and_hash():
    assert Device(1, 0) == runtime.cpu(0)
    assert Device(1, 0) != runtime.cpu(1)
    assert len({runtime.cpu(), Device(1, 0), runtime.cuda()}) == 2
    assert runtime.cpu().device_id == 0


def test_exist():
    assert runtime.cpu().exist
    assert runtime.metal().exist is False
    assert runtime.vulkan().exist is False
    assert runtime.opencl().exist is False
    assert isinstance(runtime.cuda().exist, bool)  # True only with a GPU; never raises
    assert runtime.cuda(10_000).exist is False


def test_sync_is_safe():
    runtime.cpu().sync()
    runtime.cuda().sync()  # no back end registered: nothing to wait for
