"""The DeviceAPI hook: a fake device backed by host memory exercises allocation and copies."""

import ctypes

import numpy as np
import pytest

from ember import nd, runtime
from ember.runtime import DeviceType


class HostBackedAPI:
    """Pretends to be a device; memory is host memory, so copies are memmove."""

    def __init__(self):
        self.synced = 0

    def exist(self, device_id):
        return device_id == 0

    def alloc(self, device_id, nbytes, alignment):
        owner = np.empty(nbytes + alignment, np.uint8)
        return owner.ctypes.data + (-owner.ctypes.data) % alignment, owner

    def copy(self, dst, dst_device, src, src_device, nbytes):
        ctypes.memmove(dst, src, nbytes)

    def sync(self, device_id):
        self.synced += 1


@pytest.fixture
def ext_dev():
    api = HostBackedAPI()
    runtime.register_device_api(DeviceType.EXT_DEV, api)
    yield runtime.ext_dev(0), api
    runtime.remove_device_api(DeviceType.EXT_DEV)


def test_exist_follows_the_api(ext_dev):
    dev, _ = ext_dev
    assert dev.exist and not runtime.ext_dev(1).exist


def test_alloc_and_copies(ext_dev):
    dev, api = ext_dev
    a = nd.array(np.arange(6, dtype="int32").reshape(2, 3), dev)
    assert a.device == dev and a.data_ptr % 64 == 0
    assert a.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    b = a.copyto(runtime.cpu())
    assert b.device == runtime.cpu() and b.numpy().sum() == 15
    c = nd.empty((2, 3), "int32", dev).copyfrom(a)
    assert c.numpy().tolist() == a.numpy().tolist()
    dev.sync()
    assert api.synced == 1
    assert "ext_dev(0)" in repr(a)


def test_double_registration(ext_dev):
    with pytest.raises(ValueError, match="already registered for device type 12"):
        runtime.register_device_api(DeviceType.EXT_DEV, HostBackedAPI())


def test_device_without_api():
    with pytest.raises(RuntimeError, match=r"device ext_dev\(0\) does not exist"):
        nd.empty((1,), "float32", runtime.ext_dev())
