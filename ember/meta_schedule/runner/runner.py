"""The runner interface: ``RunnerInput`` (a built library, its argument shapes and an
optional reference to check results against) in, ``RunnerFuture`` → ``RunnerResult`` out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class RunnerInput:
    artifact_path: str
    device_type: str
    args_info: list
    # path of a ``.npz`` with the inputs and the unscheduled program's outputs (see check.py)
    reference: str | None = None


@dataclass(frozen=True)
class RunnerResult:
    run_secs: list | None = None
    error_msg: str | None = None


class RunnerFuture:
    """A result that is ready (ember's runners finish a batch before returning)."""

    def __init__(self, result: RunnerResult):
        self._result = result

    def done(self) -> bool:
        return True

    def result(self) -> RunnerResult:
        return self._result


class Runner(Protocol):
    def run(self, runner_inputs: list[RunnerInput]) -> list[RunnerFuture]: ...


def create(kind: str = "local", *args, **kwargs) -> Runner:
    from .local_runner import LocalRunner

    if kind == "local":
        return LocalRunner(*args, **kwargs)
    if kind == "ray":
        from ..distributed import RayRunner

        return RayRunner(*args, **kwargs)
    raise ValueError(f"Runner.create: kind must be 'local' or 'ray', got {kind!r}")
