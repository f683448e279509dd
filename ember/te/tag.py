"""``te.tag_scope``: give every ``te.compute`` made inside a scope (a ``with`` block or a
decorated function) a default tag, as TVM's operator libraries do ("conv2d_nchw", …)."""

from __future__ import annotations

import functools

__all__ = ["tag_scope", "current_tag"]

_current: list[str] = []


def current_tag() -> str:
    """The tag of the innermost active scope, or ``""``."""
    return _current[-1] if _current else ""


class tag_scope:  # noqa: N801 - TVM's name
    """Tag the computes made inside; scopes do not nest (a nested one raises ValueError)."""

    def __init__(self, tag: str):
        self.tag = tag

    def __enter__(self):
        if _current:
            raise ValueError(f"te.tag_scope({self.tag!r}) inside tag_scope({_current[-1]!r}): "
                             "tag scopes do not nest")
        _current.append(self.tag)
        return self

    def __exit__(self, *exc):
        _current.pop()

    def __call__(self, func):
        @functools.wraps(func)
        def tagged(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return tagged
