"""The bundled example (the README's first command) runs and reports success."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_quickstart_runs():
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "quickstart.py")],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "correct for batch 1 and 32" in result.stdout
    assert "expected dtype float32, got float64" in result.stdout
