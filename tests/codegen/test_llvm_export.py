"""export_library → a shared library that loads back and runs (with its argument checks)."""

import re

import numpy as np
import pytest

import ember
from ember.codegen.llvm import load_library
from ember.tir import ForKind

from codegen_helpers import elementwise


def test_export_and_load_shared_library(tmp_path):
    mod = ember.build(elementwise(lambda a, b: a * b, ["float32", "float32"], "float32", name="mul",
                                  kind=ForKind.PARALLEL), target="llvm")
    path = str(tmp_path / "mul.so")
    mod.export_library(path)
    loaded = load_library(path)
    a = np.arange(10, dtype="float32")
    b = np.full(10, 3, "float32")
    out = np.zeros(10, "float32")
    loaded["mul"](a, b, out)
    np.testing.assert_array_equal(out, a * 3)
    with pytest.raises(ember.runtime.ArgumentError, match=re.escape("argument 'A1' (#2): expected dtype float32")):
        loaded["mul"](a, b.astype("float64"), out)


@pytest.mark.parametrize("ext", ["o", "ll", "s"])
def test_export_other_formats(tmp_path, ext):
    mod = ember.build(elementwise(lambda a: a + 1.0, ["float32"], "float32"), target="llvm")
    path = tmp_path / f"k.{ext}"
    mod.export_library(str(path))
    assert path.stat().st_size > 0


def test_load_library_rejects_foreign_libraries():
    import ctypes.util

    libm = ctypes.util.find_library("m")
    if libm is None or not libm.startswith("/"):
        import glob

        found = glob.glob("/lib/x86_64-linux-gnu/libm.so.6") + glob.glob("/usr/lib/libm.so*")
        if not found:
            pytest.skip("no libm path to test with")
        libm = found[0]
    with pytest.raises(ValueError, match="has no __ember_module_info symbol"):
        load_library(libm)


def test_cross_compilation_emits_code_but_does_not_run(tmp_path):
    mod = ember.build(elementwise(lambda a: a * 2.0, ["float32"], "float32", name="twice"),
                      target="llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72")
    asm = mod.get_source("asm")
    assert "twice:" in asm and "ldr" in asm
    assert "aarch64" in mod.get_source("ll")
    with pytest.raises(RuntimeError, match="compiled for aarch64-linux-gnu, which cannot run in this process"):
        mod["twice"]
    with pytest.raises(RuntimeError, match="cannot run in this process"):
        mod(np.zeros(2, "float32"), np.zeros(2, "float32"))
    obj = tmp_path / "twice.o"
    mod.export_library(str(obj))
    assert obj.read_bytes()[:4] == b"\x7fELF"
