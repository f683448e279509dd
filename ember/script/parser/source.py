"""Script source: the text, its AST, and where it sits in its file (for error messages)."""

from __future__ import annotations

import ast
import inspect
import textwrap

from ember.script.errors import ParserError

__all__ = ["Source"]


class Source:
    """Dedented source text of a decorated function/class (or a string) and its AST."""

    def __init__(self, text: str, filename: str = "<script>", start_line: int = 1):
        self.filename = filename
        self.start_line = start_line
        self.lines = text.splitlines()
        dedented = textwrap.dedent(text)
        self.indent = _common_indent(self.lines) if dedented != text else 0
        try:
            self.tree = ast.parse(dedented)
        except SyntaxError as err:
            raise ParserError(
                f"invalid Python syntax: {err.msg}", filename,
                start_line + (err.lineno or 1) - 1, (err.offset or 1) - 1 + self.indent,
                self._line(err.lineno or 1),
            ) from None

    @staticmethod
    def from_object(obj, frame=None) -> Source:
        """The source of a function or class, remembering its file and first line.

        When ``inspect`` cannot find a class (its module is not in ``sys.modules``), the
        file of ``frame`` (where the decorator ran) is searched for the definition."""
        try:
            lines, start = inspect.getsourcelines(obj)
        except (OSError, TypeError) as err:
            found = _find_in_frame_file(obj, frame)
            if found is not None:
                return found
            name = getattr(obj, "__qualname__", repr(obj))
            raise ParserError(
                f"cannot read the source of {name} ({err}); use ember.script.from_source(text)"
            ) from None
        filename = inspect.getsourcefile(obj) or "<unknown>"
        return Source("".join(lines), filename, max(start, 1))

    def _line(self, lineno: int) -> str | None:
        idx = lineno - 1
        return self.lines[idx] if 0 <= idx < len(self.lines) else None

    def error(self, node, message: str) -> ParserError:
        """A ParserError pointing at ``node`` (an AST node) in the original file."""
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return ParserError(message, self.filename)
        col = getattr(node, "col_offset", 0) + self.indent
        end_col = None
        if getattr(node, "end_lineno", None) == lineno and node.end_col_offset is not None:
            end_col = node.end_col_offset + self.indent
        return ParserError(message, self.filename, self.start_line + lineno - 1, col,
                           self._line(lineno), end_col)


def _find_in_frame_file(obj, frame) -> Source | None:
    """The definition of ``obj`` named in ``frame``'s file closest to the frame's line."""
    import linecache

    if frame is None or not isinstance(obj, type):
        return None
    filename = frame.f_code.co_filename
    lines = linecache.getlines(filename)
    if not lines:
        return None
    try:
        tree = ast.parse("".join(lines))
    except SyntaxError:
        return None
    defs = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == obj.__name__]
    if not defs:
        return None
    best = min(defs, key=lambda n: abs(n.lineno - frame.f_lineno))
    first = min([d.lineno for d in best.decorator_list] + [best.lineno])
    return Source("".join(lines[first - 1:best.end_lineno]), filename, first)


def _common_indent(lines: list[str]) -> int:
    widths = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    return min(widths) if widths else 0
