"""Which targets this machine can run, and pytest markers that skip cleanly without a GPU.

``@requires_cuda`` marks a test ``gpu`` (deselected by default, see pyproject.toml) and
skips it when no CUDA device exists, so ``pytest -m gpu`` on a CPU-only machine reports
skips, not failures.
"""

from __future__ import annotations

from ..runtime.device import cuda


def enabled_targets() -> list[tuple[str, object]]:
    """(target name, device) pairs usable here: always ``llvm``/cpu, plus ``cuda`` with a GPU."""
    from ..runtime.device import cpu

    targets: list[tuple[str, object]] = [("llvm", cpu(0))]
    if cuda(0).exist:
        targets.append(("cuda", cuda(0)))
    return targets


def _cuda_marks():
    import pytest

    return [pytest.mark.gpu, pytest.mark.skipif(not cuda(0).exist, reason="needs a CUDA GPU (none found)")]


def requires_cuda(test):
    """Decorator: mark a test as needing a CUDA GPU; it is skipped without one."""
    for mark in _cuda_marks():
        test = mark(test)
    return test


requires_gpu = requires_cuda


def uses_gpu(test):
    """Decorator: mark a test ``gpu`` that also runs (its CPU part) without a GPU."""
    import pytest

    return pytest.mark.gpu(test)
