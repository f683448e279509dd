"""``Source``: a program (source text, a function or a class) with where it comes from."""

from __future__ import annotations

import ast
import inspect
import textwrap

__all__ = ["Source"]


class Source:
    """The text of ``program`` and its position in its file.

    ``source_name`` is the file (``"<str>"`` for text), ``start_line`` / ``start_column`` where
    the program starts in it, ``source`` the program's own text, ``full_source`` the whole
    file's text; ``as_ast()`` parses the (dedented) program."""

    def __init__(self, program):
        if isinstance(program, str):
            self.source_name, self.start_line, self.start_column = "<str>", 1, 0
            self.source = self.full_source = program
            return
        self.source_name = inspect.getsourcefile(program) or "<unknown>"
        lines, self.start_line = inspect.getsourcelines(program)
        self.source = "".join(lines)
        first = lines[0] if lines else ""
        self.start_column = len(first) - len(first.lstrip())
        module = inspect.getmodule(program)
        self.full_source = inspect.getsource(module) if module is not None else self.source

    def as_ast(self) -> ast.Module:
        return ast.parse(textwrap.dedent(self.source))
