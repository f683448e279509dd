"""The builder interface: ``BuilderInput`` (a scheduled module and its target) in,
``BuilderResult`` (a shared library's path, or an error message) out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ember.ir import IRModule


@dataclass(frozen=True)
class BuilderInput:
    mod: IRModule
    target: object
    params: dict | None = None


@dataclass(frozen=True)
class BuilderResult:
    artifact_path: str | None = None
    error_msg: str | None = None


class Builder(Protocol):
    def build(self, build_inputs: list[BuilderInput]) -> list[BuilderResult]: ...


def build_to_file(mod: IRModule, target: str, out_dir: str) -> str:
    """Compile ``mod`` for ``target`` into a fresh ``.so`` under ``out_dir`` (runs in a worker)."""
    import os
    import tempfile

    import ember

    lib = ember.build(mod, target=target)
    fd, path = tempfile.mkstemp(suffix=".so", prefix="ms_", dir=out_dir)
    os.close(fd)
    lib.export_library(path)
    return path


def build_to_bytes(mod: IRModule, target: str) -> bytes:
    """The shared library's bytes (for builders on other machines, e.g. Ray workers)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = build_to_file(mod, target, tmp)
        with open(path, "rb") as f:
            return f.read()


def create(kind: str = "local", *args, **kwargs) -> Builder:
    from .local_builder import LocalBuilder

    if kind == "local":
        return LocalBuilder(*args, **kwargs)
    if kind == "ray":
        from ..distributed import RayBuilder

        return RayBuilder(*args, **kwargs)
    raise ValueError(f"Builder.create: kind must be 'local' or 'ray', got {kind!r}")
