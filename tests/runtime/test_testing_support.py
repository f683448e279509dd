"""ember.testing, ember.support, and the runtime's independence from the compiler."""

import subprocess
import sys

import numpy as np
import pytest

from ember import nd, runtime
from ember.support import libinfo
from ember.testing import assert_allclose, enabled_targets, requires_cuda


def test_assert_allclose_accepts_any_array():
    a = nd.array(np.array([1.0, 2.0], "float32"))
    assert_allclose(a, np.array([1.0, 2.0]))
    assert_allclose(a, [1.0, 2.0])
    assert_allclose(a, a, rtol=0)
    with pytest.raises(AssertionError):
        assert_allclose(a, [1.0, 2.1])
    assert_allclose(a, [1.0, 2.1], atol=0.2)
    with pytest.raises(AssertionError, match=r"shape mismatch: actual \(2,\), desired \(3,\)"):
        assert_allclose(a, [1.0, 2.0, 3.0])


def test_assert_allclose_torch():
    torch = pytest.importorskip("torch")
    assert_allclose(torch.ones(3, requires_grad=True), nd.array(np.ones(3, "float32")))
    assert_allclose(torch.ones(2, dtype=torch.bfloat16), [1.0, 1.0])


def test_enabled_targets():
    targets = enabled_targets()
    assert targets[0] == ("llvm", runtime.cpu(0))
    assert (("cuda", runtime.cuda(0)) in targets) == runtime.cuda(0).exist


@requires_cuda
def test_requires_cuda_runs_only_with_a_gpu():
    assert runtime.cuda(0).exist


def test_requires_cuda_marks():
    marks = {m.name for m in test_requires_cuda_runs_only_with_a_gpu.pytestmark}
    assert "gpu" in marks
    assert ("skip" in marks) != runtime.cuda(0).exist


def test_libinfo():
    info = libinfo()
    for key in ("VERSION", "LLVM_VERSION", "NUMPY_VERSION", "USE_CUDA", "USE_LLVM"):
        assert isinstance(info[key], str) and info[key]
    assert info["NUMPY_VERSION"] == np.__version__
    assert info["USE_CUDA"] == ("ON" if runtime.cuda(0).exist else "OFF")


def test_runtime_imports_no_compiler_package():
    code = (
        "import sys, ember; before = set(sys.modules); import ember.runtime, ember.nd, ember.testing, ember.support; "
        "new = sorted(m for m in set(sys.modules) - before if m.startswith('ember.')); "
        "bad = [m for m in new if m.split('.')[1] in "
        "('ir', 'arith', 'tir', 'te', 'script', 'codegen', 'target', 'relax', 'topi', 'driver', 'transform')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
