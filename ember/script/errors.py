"""``ParserError``: a script error that shows the file, line and source with a caret."""

from __future__ import annotations

import contextlib

from ember.error import DiagnosticError

__all__ = ["ParserError", "reported"]


class ParserError(DiagnosticError):
    """A construct the TVMScript parser cannot accept, located in the source.

    ``str(err)`` reads like a compiler diagnostic::

        error: T.axis.remap expects a string of S/R kinds, got 42
          --> test_file.py:12:13
           |
        12 |             vi = T.axis.remap(42, [i])
           |                  ^^^^^^^^^^^^^^^^^^^^^
    """

    def __init__(self, message: str, filename: str = "<script>", lineno: int | None = None,
                 col: int | None = None, source_line: str | None = None, end_col: int | None = None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.source_line = source_line
        self.end_col = end_col
        super().__init__(self._render())

    def _render(self) -> str:
        if self.lineno is None:
            return f"error: {self.message}\n  --> {self.filename}"
        col = (self.col or 0) + 1
        out = [f"error: {self.message}", f"  --> {self.filename}:{self.lineno}:{col}"]
        if self.source_line is not None:
            gutter = " " * len(str(self.lineno))
            line = self.source_line.rstrip("\n")
            start = self.col or 0
            end = self.end_col if self.end_col and self.end_col > start else len(line)
            out += [f"{gutter} |", f"{self.lineno} | {line}", f"{gutter} | {' ' * start}{'^' * max(1, end - start)}"]
        return "\n".join(out)

    def diagnostic(self):
        """This error as an ``ember.ir.diagnostics.Diagnostic``."""
        from ember.ir.diagnostics import Diagnostic, DiagnosticLevel, SourceSpan

        span = None
        if self.lineno is not None:
            col = self.col or 0
            span = SourceSpan(self.filename, self.lineno, col, self.lineno, self.end_col or col)
        return Diagnostic(DiagnosticLevel.ERROR, span, self.message)


@contextlib.contextmanager
def reported():
    """Hand a ``ParserError`` raised inside to the diagnostics renderer, then let it raise."""
    try:
        yield
    except ParserError as err:
        from ember.ir.diagnostics import DiagnosticContext, render

        render(DiagnosticContext([err.diagnostic()]))
        raise
