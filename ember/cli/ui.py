"""What the command line shows: progress steps on stderr, result tables, and its errors.

``UsageError`` (exit code 2) is a bad command line; ``ModelError`` (exit code 1) is a
model or file ember rejects.  Both print as one line; ``--verbose`` adds the traceback.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time

__all__ = ["UsageError", "ModelError", "Progress", "table"]


class UsageError(Exception):
    """The command line is wrong (exit code 2)."""


class ModelError(Exception):
    """The model or file given cannot be used (exit code 1)."""


class Progress:
    """``with progress.step("compiling"):`` prints the step and how long it took (stderr).
    On a terminal a ticking clock shows that long steps are alive."""

    def __init__(self, quiet: bool = False, stream=None):
        self.quiet = quiet
        self.stream = stream or sys.stderr

    def note(self, text: str) -> None:
        if not self.quiet:
            print(text, file=self.stream, flush=True)

    @contextlib.contextmanager
    def step(self, text: str):
        if self.quiet:
            yield
            return
        start = time.perf_counter()
        tty = getattr(self.stream, "isatty", lambda: False)()
        done = threading.Event()
        if tty:
            def tick():
                while not done.wait(1.0):
                    print(f"\r  {text} ... {time.perf_counter() - start:.0f} s", end="", file=self.stream,
                          flush=True)

            threading.Thread(target=tick, daemon=True).start()
        else:
            print(f"  {text} ...", file=self.stream, flush=True)
        try:
            yield
        finally:
            done.set()
            prefix = "\r" if tty else ""
            print(f"{prefix}  {text} ... {time.perf_counter() - start:.1f} s", file=self.stream, flush=True)


def table(headers: list[str], rows: list[list], title: str | None = None) -> str:
    """A plain-text table with aligned columns (numbers right-aligned)."""
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    numeric = [all(isinstance(row[i], int | float) for row in rows) and rows for i in range(len(headers))]

    def line(row):
        return "  ".join(c.rjust(w) if numeric[i] else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths)))

    out = [title] if title else []
    out += [line(cells[0]), "  ".join("-" * w for w in widths)] + [line(r) for r in cells[1:]]
    return "\n".join(s.rstrip() for s in out)


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1e-3 or abs(value) >= 1e4 else f"{value:.3f}".rstrip("0").rstrip(".")
    return str(value)
