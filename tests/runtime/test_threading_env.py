"""import ember bounds libgomp's spin count unless the user chose an OpenMP wait policy."""

import os
import subprocess
import sys

import pytest

SCRIPT = "import os, ember; print(os.environ.get('GOMP_SPINCOUNT'))"


@pytest.mark.parametrize("env,expected", [({}, "10000"), ({"GOMP_SPINCOUNT": "5"}, "5"),
                                          ({"OMP_WAIT_POLICY": "active"}, "None")])
def test_import_bounds_openmp_spinning(env, expected):
    clean = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    done = subprocess.run([sys.executable, "-c", SCRIPT], env={**clean, **env}, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected
