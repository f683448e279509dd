"""Which targets this machine can run, and pytest markers that skip cleanly without a GPU.

``uses_gpu`` marks a test ``gpu`` (deselected by default, see pyproject.toml); the
``requires_*`` decorators live in ``marks.py``.
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


def uses_gpu(test):
    """Decorator: mark a test ``gpu`` that also runs (its CPU part) without a GPU."""
    import pytest

    return pytest.mark.gpu(test)
