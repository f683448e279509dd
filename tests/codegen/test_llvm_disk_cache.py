"""The on-disk object cache: entries are written, reused by a fresh build, and can be disabled."""

import numpy as np

import ember
from ember.codegen.llvm import clear_cache

from codegen_helpers import elementwise


def _func(scale: float):
    return elementwise(lambda a: a * scale + 0.5, ["float32"], "float32", name="scaled")


def _check(mod, scale):
    a = np.arange(9, dtype="float32")
    out = np.zeros_like(a)
    mod(a, out)
    np.testing.assert_array_equal(out, a * np.float32(scale) + np.float32(0.5))


def test_entries_are_written_and_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("EMBER_DISK_CACHE", "1")
    clear_cache()
    _check(ember.build(_func(3.25), target="llvm"), 3.25)
    entries = sorted(p.name for p in (tmp_path / "llvm").iterdir())
    assert len(entries) == 2 and entries[0].endswith(".ll") and entries[1].endswith(".o")
    clear_cache()  # the in-memory cache is gone: this build loads the object from disk
    mod = ember.build(_func(3.25), target="llvm")
    _check(mod, 3.25)
    assert mod.compiled.module is None  # loaded from the object file, not compiled
    assert "scaled" in mod.get_source("ll") and "scaled" in mod.get_source("asm")
    assert len(list((tmp_path / "llvm").iterdir())) == 2


def test_disabled_cache_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("EMBER_DISK_CACHE", "0")
    clear_cache()
    _check(ember.build(_func(-1.5), target="llvm"), -1.5)
    assert not (tmp_path / "llvm").exists()
