"""Text of a PrimFunc for schedule output and error messages.

``func_script`` prints with the TVMScript printer (``ember.script.printer.to_script``),
the one printer of the project.  ``mark_line`` finds the line of a block
(``T.block("C")``) or loop (``for i in``) and appends ``  # <--- error here``.
"""

from __future__ import annotations

import re

__all__ = ["func_script", "mark_line"]


def func_script(func, name: str = "main") -> str:
    """TVMScript of ``func``; if the printer fails, a comment line saying why (schedule
    errors are rendered with this text and must never fail themselves)."""
    try:
        from ember.script.printer import to_script  # printing is a higher layer

        return to_script(func)
    except Exception as err:  # noqa: BLE001 - rendering an error must not raise another
        return f"# {name}: the TVMScript printer failed ({type(err).__name__}: {err})"


def mark_line(text: str, block_name: str | None = None, loop_name: str | None = None) -> str:
    """Append ``# <--- error here`` to the line of the named block or loop (first match)."""
    lines = text.split("\n")
    if block_name is not None:
        pattern = re.compile(r'T\.block\(\s*["\']' + re.escape(block_name) + r'["\']')
    elif loop_name is not None:
        pattern = re.compile(r"\bfor\b[^:]*\b" + re.escape(loop_name) + r"\b[^:]*\bin\b")
    else:
        return text
    for k, line in enumerate(lines):
        if pattern.search(line):
            lines[k] = line + "  # <--- error here"
            break
    return "\n".join(lines)
