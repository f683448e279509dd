"""A test file written the way TVM's own tests are: ``tvm.testing.parameter`` fixtures,
``@tvm.testing.requires_llvm``, ``tvm.testing.assert_allclose`` and ``tvm.testing.main()``."""

import subprocess
import sys

import numpy as np
import pytest

import ember as tvm
from ember import te

size = tvm.testing.parameter(1, 7, 64)
dtype = tvm.testing.parameter("float32", "int32", ids=["f32", "i32"])


@tvm.testing.requires_llvm
def test_add_one(size, dtype):
    A = te.placeholder((size,), name="A", dtype=dtype)
    B = te.compute((size,), lambda i: A[i] + tvm.tir.const(1, dtype), name="B")
    func = tvm.build(te.create_schedule(B.op), [A, B], "llvm")
    a = np.arange(size).astype(dtype)
    b = tvm.nd.empty((size,), dtype)
    func(tvm.nd.array(a), b)
    tvm.testing.assert_allclose(b.numpy(), a + 1)


def test_parameter_needs_values():
    with pytest.raises(ValueError, match="expected at least one value"):
        tvm.testing.parameter()


def test_main_runs_the_calling_file(tmp_path):
    script = tmp_path / "test_tiny.py"
    script.write_text(
        "import ember as tvm\n\n"
        "def test_ok():\n    assert tvm.cpu(0).exist\n\n"
        "if __name__ == '__main__':\n    tvm.testing.main()\n"
    )
    done = subprocess.run([sys.executable, str(script), "-q", "-p", "no:cacheprovider"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
