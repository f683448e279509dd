"""Issue 15: an output array backed by read-only memory (numpy ``writeable=False``, a
read-only mmap) is refused by the argument checks instead of written (or crashing)."""

import mmap
import re

import numpy as np
import pytest

import ember
from ember import te
from ember.runtime import ArgumentError

MESSAGE = re.escape("main: argument 'B' (#2): main writes to it, got a read-only array")


@pytest.fixture(scope="module")
def add_one():
    A = te.placeholder((4,), "float32", name="A")
    B = te.compute((4,), lambda i: A[i] + 1, name="B")
    return ember.build(te.create_prim_func([A, B]), target="llvm")


def test_numpy_output_with_writeable_false_is_refused(add_one):
    out = np.zeros(4, "float32")
    out.flags.writeable = False
    with pytest.raises(ArgumentError, match=MESSAGE):
        add_one(np.ones(4, "float32"), out)
    np.testing.assert_array_equal(out, np.zeros(4))


def test_output_over_a_read_only_mmap_is_refused(add_one, tmp_path):
    path = tmp_path / "zeros.bin"
    path.write_bytes(b"\0" * 16)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 16, access=mmap.ACCESS_READ) as m:
        out = np.frombuffer(m, dtype="float32")
        with pytest.raises(ArgumentError, match=MESSAGE):
            add_one(np.ones(4, "float32"), out)
        del out


def test_strided_and_ndarray_read_only_outputs_are_refused(add_one):
    base = np.zeros(8, "float32")
    base.flags.writeable = False
    with pytest.raises(ArgumentError, match=MESSAGE):
        add_one(np.ones(4, "float32"), base[::2])
    view = ember.runtime.ndarray._wrap_numpy(base[:4], ember.cpu())
    with pytest.raises(ArgumentError, match=MESSAGE):
        add_one(np.ones(4, "float32"), view)


def test_read_only_inputs_are_fine(add_one):
    a = np.ones(4, "float32")
    a.flags.writeable = False
    out = np.zeros(4, "float32")
    add_one(a, out)
    np.testing.assert_array_equal(out, np.full(4, 2.0))
    assert [p.written for p in add_one.get_function("main").info.params] == [False, True]


def test_exported_library_keeps_the_output_check(add_one, tmp_path):
    path = str(tmp_path / "add_one.so")
    add_one.export_library(path)
    loaded = ember.runtime.load_module(path)
    out = np.zeros(4, "float32")
    out.flags.writeable = False
    with pytest.raises(ArgumentError, match=MESSAGE):
        loaded["main"](np.ones(4, "float32"), out)
