"""Every example in examples/ runs and reports success (the README's first command runs
quickstart.py)."""

import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _run(script: str, *args: str) -> str:
    result = subprocess.run([sys.executable, str(ROOT / "examples" / script), *args], capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_quickstart_runs():
    out = _run("quickstart.py")
    assert "correct for batch 1 and 32" in out
    assert "expected dtype float32, got float64" in out


def test_schedule_kernel():
    assert "result matches numpy" in _run("schedule_kernel.py")


def test_import_onnx():
    pytest.importorskip("onnxruntime")
    assert "matches ONNX Runtime" in _run("import_onnx.py")


def test_import_pytorch():
    pytest.importorskip("torch")
    assert "matches PyTorch" in _run("import_pytorch.py")


@pytest.mark.slow  # worker processes for building and measuring: ~10 s of CPU, minutes on a loaded machine
def test_tune():
    assert "result matches numpy" in _run("tune.py", "4")


def test_export_and_load():
    out = _run("export_and_load.py")
    assert "compiler modules loaded: none" in out and "classic deploy flow" in out


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_deploy_c():
    assert "C program: output matches" in _run("deploy_c/build_and_run.py")
