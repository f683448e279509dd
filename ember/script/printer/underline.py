"""Lay out printed text in lines, marking with ``^`` the spans that stand for chosen IR objects.

A span is the text a doc node produced together with that node's source paths. For each
path to underline, the spans whose source paths are the *longest* prefix of it win (an
exact match beats its parent object). Optional line numbers go in a right-aligned column;
with ``num_context_lines``, only the lines near a marked line are kept and each run of
left-out lines (two or more) becomes ``(... N lines skipped ...)``.
"""

from __future__ import annotations

import dataclasses

__all__ = ["Span", "render_lines"]


@dataclasses.dataclass(frozen=True)
class Span:
    start: int
    end: int
    paths: tuple


def _chosen_spans(spans, targets) -> list:
    chosen = []
    for target in targets:
        best, winners = -1, []
        for span in spans:
            lengths = [len(p) for p in span.paths if p == target or p.is_prefix_of(target)]
            if not lengths:
                continue
            length = max(lengths)
            if length > best:
                best, winners = length, [span]
            elif length == best:
                winners.append(span)
        chosen.extend(winners)
    return chosen


def _marks(line: str, start: int, spans) -> str:
    """The ``^`` line under ``line`` (which starts at offset ``start`` of the whole text)."""
    text_start = len(line) - len(line.lstrip(" "))
    text_end = len(line.rstrip())
    cols = [" "] * text_end
    for span in spans:
        lo = max(span.start - start, text_start)
        hi = min(span.end - start, text_end)
        for c in range(lo, hi):
            cols[c] = "^"
    return "".join(cols).rstrip()


def render_lines(text: str, spans, targets, print_line_numbers: bool = False,
                 num_context_lines: int | None = None) -> str:
    chosen = _chosen_spans(spans, targets) if targets else []
    lines, offsets, pos = [], [], 0
    for line in text.split("\n"):
        lines.append(line)
        offsets.append(pos)
        pos += len(line) + 1
    while lines and not lines[-1].strip():  # no trailing blank lines
        lines.pop()
        offsets.pop()
    marks = [_marks(line, off, [s for s in chosen if s.start < off + len(line) and s.end > off])
             for line, off in zip(lines, offsets)]
    width = len(str(len(lines)))
    keep = [True] * len(lines)
    marked = [i for i, m in enumerate(marks) if m]
    if num_context_lines is not None and num_context_lines >= 0 and marked:
        keep = [any(abs(i - m) <= num_context_lines for m in marked) for i in range(len(lines))]
    out, i = [], 0
    while i < len(lines):
        if not keep[i]:
            j = i
            while j < len(lines) and not keep[j]:
                j += 1
            if j - i > 1:
                out.append(f"(... {j - i} lines skipped ...)")
                i = j
                continue
        prefix = f"{i + 1:>{width}} " if print_line_numbers else ""
        out.append((prefix + lines[i]).rstrip())
        if marks[i]:
            out.append(" " * len(prefix) + marks[i])
        i += 1
    return "\n".join(out)
