"""Diagnostics (``tvm.ir.diagnostics``): errors located in source text, and who renders them.

A front end (the TVMScript parser) that finds an error builds ``Diagnostic``s, hands a
``DiagnosticContext`` holding them to the current renderer and then raises its
``DiagnosticError``. The default renderer does nothing (the raised error's message already
shows the source line); ``override_renderer(fn)`` installs ``fn(context)`` instead (tools
and tests collect the diagnostics that way), ``override_renderer(None)`` restores it.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable

__all__ = ["DiagnosticLevel", "SourceSpan", "Diagnostic", "DiagnosticContext", "override_renderer",
           "get_renderer", "render"]


class DiagnosticLevel(enum.IntEnum):
    BUG = 10
    ERROR = 20
    WARNING = 30
    NOTE = 40
    HELP = 50


@dataclasses.dataclass(frozen=True)
class SourceSpan:
    """Where in a source: 1-based lines, 0-based columns (``end_*`` exclusive)."""

    source_name: str
    line: int
    column: int
    end_line: int
    end_column: int


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    level: DiagnosticLevel
    span: SourceSpan | None
    message: str


@dataclasses.dataclass
class DiagnosticContext:
    """The diagnostics of one report, in the order they were found."""

    diagnostics: list = dataclasses.field(default_factory=list)

    def emit(self, diagnostic: Diagnostic) -> None:
        self.diagnostics.append(diagnostic)

    def render(self) -> None:
        render(self)


def _default_renderer(context: DiagnosticContext) -> None:
    """The raised error carries the rendered text; nothing to print here."""


_renderer: Callable = _default_renderer


def override_renderer(fn: Callable | None) -> None:
    """Render diagnostics with ``fn(context)``; ``None`` restores the default."""
    global _renderer
    _renderer = _default_renderer if fn is None else fn


def get_renderer() -> Callable:
    return _renderer


def render(context: DiagnosticContext) -> None:
    _renderer(context)
