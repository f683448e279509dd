"""Marking printed IR: underlines (``path_to_underline`` / ``obj_to_underline``) and comments
(``path_to_annotate`` / ``obj_to_annotate``) on the objects a print was asked to point at.

Paths are resolved to objects first (the deepest IR node along the path). While printing,
the text of a marked object is wrapped in two sentinel characters; ``finish`` removes them
and draws the ``^`` lines with ``underline.render_lines``.
"""

from __future__ import annotations

import dataclasses

from .underline import Span, render_lines

__all__ = ["Marks", "collect_marks", "resolve_path", "finish", "OPEN", "CLOSE"]

OPEN, CLOSE = "\x01", "\x02"


@dataclasses.dataclass
class Marks:
    underline: set = dataclasses.field(default_factory=set)  # ids of objects to underline
    annotate: dict = dataclasses.field(default_factory=dict)  # id -> comment text
    keep: list = dataclasses.field(default_factory=list)  # the objects, so their ids stay unique

    def __bool__(self) -> bool:
        return bool(self.underline or self.annotate)

    def add_underline(self, obj) -> None:
        if obj is not None:
            self.underline.add(id(obj))
            self.keep.append(obj)

    def add_annotation(self, obj, text: str) -> None:
        if obj is not None:
            self.annotate[id(obj)] = str(text)
            self.keep.append(obj)


def _steps(path) -> list:
    steps = []
    while path is not None and path.parent is not None:
        steps.append(path)
        path = path.parent
    return steps[::-1]


def resolve_path(root, path):
    """The deepest IR node reached from ``root`` along ``path`` (``root`` for the root path)."""
    from ember.ir import Node
    from ember.runtime.object_path import ArrayIndexPath, AttributeAccessPath, MapValuePath

    obj = root
    for step in _steps(path):
        try:
            if isinstance(step, AttributeAccessPath):
                nxt = getattr(obj, step.attr_key)
            elif isinstance(step, ArrayIndexPath):
                nxt = obj[step.index]
            elif isinstance(step, MapValuePath):
                nxt = obj[step.key]
            else:
                break
        except (AttributeError, IndexError, KeyError, TypeError):
            break
        if not isinstance(nxt, Node | dict | list | tuple):
            break
        obj = nxt
    return obj if isinstance(obj, Node) else None


def collect_marks(root, options: dict) -> Marks:
    marks = Marks()
    for path in options.get("path_to_underline") or ():
        marks.add_underline(resolve_path(root, path))
    for obj in options.get("obj_to_underline") or ():
        marks.add_underline(obj)
    for path, text in dict(options.get("path_to_annotate") or {}).items():
        marks.add_annotation(resolve_path(root, path), text)
    for obj, text in dict(options.get("obj_to_annotate") or {}).items():
        marks.add_annotation(obj, text)
    return marks


def wrap_lines(lines: list, start: int) -> None:
    """Mark the content (after the indentation) of ``lines[start:]``."""
    for i in range(start, len(lines)):
        line = lines[i]
        body = line.lstrip(" ")
        if body:
            lines[i] = line[:len(line) - len(body)] + OPEN + body + CLOSE


def finish(text: str) -> str:
    """``text`` without sentinels, each marked span underlined."""
    from ember.runtime.object_path import ObjectPath

    here = ObjectPath.root()
    out, spans, stack = [], [], []
    pos = 0
    for ch in text:
        if ch == OPEN:
            stack.append(pos)
        elif ch == CLOSE:
            if stack:
                spans.append(Span(stack.pop(), pos, (here,)))
        else:
            out.append(ch)
            pos += 1
    return render_lines("".join(out), spans, [here])
