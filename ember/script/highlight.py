"""Print TVMScript with syntax colours (``tvm.script.highlight``): ``cprint(obj_or_text, style)``.

Colours come from Pygments when it is installed; without it, or when output is not a
terminal and no style was asked for, the text prints plain. ``style`` is ``"light"``,
``"dark"``, ``"ansi"`` (the terminal's own 16 colours) or any Pygments style name.
"""

from __future__ import annotations

import sys

__all__ = ["cprint"]

_STYLE_NAMES = {"light": "default", "dark": "monokai"}


def _format(code: str, formatter: str | None = None) -> str:
    """``code`` reformatted by ``formatter`` ("ruff" or "black") when that tool is importable;
    unchanged otherwise (formatting is cosmetic)."""
    if formatter == "black":
        try:
            import black
        except ImportError:
            return code
        return black.format_str(code, mode=black.FileMode())
    return code


def _colourise(code: str, style: str | None) -> str:
    try:
        from pygments import highlight
        from pygments.formatters import Terminal256Formatter, TerminalFormatter
        from pygments.lexers.python import Python3Lexer
        from pygments.styles import get_style_by_name
        from pygments.util import ClassNotFound
    except ImportError:
        return code
    if style is None and not sys.stdout.isatty():
        return code
    if style in (None, "ansi"):
        formatter = TerminalFormatter()
    else:
        name = _STYLE_NAMES.get(style, style)
        try:
            get_style_by_name(name)
        except ClassNotFound as e:
            raise ValueError(f"cprint: unknown style {style!r}") from e
        formatter = Terminal256Formatter(style=name)
    return highlight(code, Python3Lexer(), formatter).rstrip("\n")


def cprint(printable, style: str | None = None, black_format: bool = False) -> None:
    """Print ``printable`` (an IR node, printed as TVMScript, or a string) in colour."""
    code = printable if isinstance(printable, str) else printable.script()
    if black_format:
        code = _format(code, "black")
    print(_colourise(code, style))
