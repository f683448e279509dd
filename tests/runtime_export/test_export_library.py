"""export_library of Relax executables (.so and .tar) and load_module in a fresh process."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ember
from ember.runtime.export.seal import LibraryFileError

from export_models import mlp_executable, run_vm

_FRESH = """
import json, sys
import numpy as np
import ember
from ember import relax
ex = ember.runtime.load_module(sys.argv[1])
x = np.load(sys.argv[2])
y = relax.VirtualMachine(ex, ember.cpu())["forward"](x).numpy()
np.save(sys.argv[3], y)
heavy = [m for m in sys.modules if m.startswith(("ember.te", "ember.codegen", "ember.driver",
         "ember.relax.vm_build", "ember.relax.transform", "ember.relax.backend", "ember.meta_schedule",
         "ember.dlight", "ember.topi"))]
print(json.dumps(heavy))
"""

_FRESH_RUNTIME_ONLY = """
import json, sys
import numpy as np
import ember.runtime
from ember.runtime.vm import VirtualMachine
ex = ember.runtime.load_module(sys.argv[1])
y = VirtualMachine(ex, ember.runtime.cpu())["forward"](np.load(sys.argv[2])).numpy()
np.save(sys.argv[3], y)
print(json.dumps([m for m in sys.modules if m.startswith(("ember.relax", "ember.tir", "ember.te"))]))
"""


def _fresh(script, *args):
    done = subprocess.run([sys.executable, "-c", script, *map(str, args)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("ext", ["so", "tar"])
def test_export_and_load_in_fresh_process(tmp_path, ext):
    ex, reference = mlp_executable()
    path = tmp_path / f"mlp.{ext}"
    entry = ex.export_library(str(path))
    assert entry.source is not None, entry.reason
    x = np.random.default_rng(1).standard_normal((2, 16)).astype("float32")
    np.save(tmp_path / "x.npy", x)
    heavy = _fresh(_FRESH, path, tmp_path / "x.npy", tmp_path / "y.npy")
    assert heavy == []  # relax.VirtualMachine does not pull in the compiler
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), reference(x), rtol=1e-5, atol=1e-5)


def test_runtime_only_load_imports_no_compiler(tmp_path):
    ex, reference = mlp_executable()
    ex.export_library(str(tmp_path / "m.so"))
    x = np.ones((2, 16), "float32")
    np.save(tmp_path / "x.npy", x)
    assert _fresh(_FRESH_RUNTIME_ONLY, tmp_path / "m.so", tmp_path / "x.npy", tmp_path / "y.npy") == []
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), reference(x), rtol=1e-5, atol=1e-5)


def test_loaded_module_matches_in_process(tmp_path):
    ex, reference = mlp_executable()
    ex.export_library(str(tmp_path / "m.so"))
    loaded = ember.runtime.load_module(str(tmp_path / "m.so"))
    x = np.random.default_rng(2).standard_normal((2, 16)).astype("float32")
    np.testing.assert_allclose(run_vm(loaded, x), run_vm(ex, x), rtol=1e-6)


def test_symbolic_model_exports_without_native_entry(tmp_path):
    ex, reference = mlp_executable("n")
    entry = ex.export_library(str(tmp_path / "dyn.so"))
    assert entry.source is None and "symbolic shape" in entry.reason
    loaded = ember.runtime.load_module(str(tmp_path / "dyn.so"))
    x = np.ones((5, 16), "float32")
    np.testing.assert_allclose(run_vm(loaded, x), reference(x), rtol=1e-5, atol=1e-5)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    path = tmp_path_factory.mktemp("exported") / "m.so"
    mlp_executable()[0].export_library(str(path))
    return path


def test_tampered_library_is_reported(exported, tmp_path):
    bad = tmp_path / "bad.so"
    data = bytearray(exported.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad.write_bytes(bytes(data))
    with pytest.raises(LibraryFileError, match="modified after export"):
        ember.runtime.load_module(str(bad))


@pytest.mark.parametrize("keep", [0.1, 0.5, 0.97])
def test_truncated_library_is_reported(exported, tmp_path, keep):
    bad = tmp_path / "short.so"
    data = exported.read_bytes()
    bad.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(LibraryFileError, match="truncated"):
        ember.runtime.load_module(str(bad))


def test_not_a_library_is_reported(tmp_path):
    bad = tmp_path / "text.so"
    bad.write_text("hello")
    with pytest.raises(LibraryFileError, match="not a shared library"):
        ember.runtime.load_module(str(bad))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ember.runtime.load_module(str(tmp_path / "missing.so"))
    with pytest.raises(ValueError, match="expected a shared library"):
        ember.runtime.load_module(__file__)


def test_corrupt_tar_is_reported(tmp_path):
    ex, _ = mlp_executable()
    ex.export_library(str(tmp_path / "m.tar"))
    data = (tmp_path / "m.tar").read_bytes()
    (tmp_path / "short.tar").write_bytes(data[:700])
    with pytest.raises(ValueError, match="truncated or corrupt|not a tar written"):
        ember.runtime.load_module(str(tmp_path / "short.tar"))


def test_bad_export_path_is_reported(tmp_path):
    ex, _ = mlp_executable()
    with pytest.raises(ValueError, match="expected a .so or .tar"):
        ex.export_library(str(tmp_path / "m.zip"))


def test_export_without_native_entry(tmp_path):
    ex, reference = mlp_executable()
    entry = ex.export_library(str(tmp_path / "plain.so"), native_entry=False)
    assert entry.source is None
    assert os.path.getsize(tmp_path / "plain.so") > 0
