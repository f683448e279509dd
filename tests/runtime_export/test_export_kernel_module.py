"""export_library of a kernel module (ember.build): .so and .tar load back; damage is refused."""

import numpy as np
import pytest

import ember
from ember import te
from ember.runtime.export.seal import LibraryFileError


@pytest.fixture(scope="module")
def kernel_module():
    A = te.placeholder((8,), "float32", name="A")
    B = te.compute((8,), lambda i: A[i] * 3.0 + 1.0, name="B")
    return ember.build(te.create_prim_func([A, B]), target="llvm")


@pytest.mark.parametrize("ext", ["so", "tar"])
def test_kernel_module_round_trip(kernel_module, tmp_path, ext):
    path = str(tmp_path / f"k.{ext}")
    kernel_module.export_library(path)
    loaded = ember.runtime.load_module(path)
    a = np.arange(8, dtype="float32")
    b = ember.nd.empty((8,), "float32")
    loaded(ember.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 3 + 1)


def test_damaged_kernel_library_is_refused(kernel_module, tmp_path):
    kernel_module.export_library(str(tmp_path / "k.so"))
    data = bytearray((tmp_path / "k.so").read_bytes())
    data[100] ^= 0x55
    (tmp_path / "bad.so").write_bytes(bytes(data))
    with pytest.raises(LibraryFileError, match="modified after export"):
        ember.runtime.load_module(str(tmp_path / "bad.so"))
