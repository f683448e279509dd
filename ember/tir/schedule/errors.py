"""ScheduleError: a refused schedule primitive, explained, with the IR location marked.

A primitive that finds its preconditions violated raises ``ScheduleError(problem,
func=..., block=..., loop=...)``; the message is the problem followed by the
function's TVMScript with ``# <--- error here`` on the offending block's or loop's
line (``render_level="detail"``, the default).  ``Schedule(error_render_level=...)``
may ask for ``"fast"`` (the problem only, or its generic form ``fast=`` when given, as
TVM's fast error strings name no specifics) or ``"none"`` (``(not rendered)``).
"""

from __future__ import annotations

from ember.error import TVMError

from .printing import func_script, mark_line

__all__ = ["ScheduleError", "UnknownHandleError", "BufferIndexError"]


class ScheduleError(TVMError, ValueError):
    """A schedule primitive was applied where it is not legal."""

    def __init__(self, problem: str, func=None, block=None, loop=None, func_name: str = "main",
                 render_level: str = "detail", fast: str | None = None):
        self.problem = problem
        self.fast = fast
        self.func = func
        self.block_name = getattr(block, "name_hint", block)
        self.loop = loop if hasattr(loop, "loop_var") else None
        self.loop_name = getattr(getattr(loop, "loop_var", loop), "name", None)
        self.func_name = func_name
        super().__init__(self.render(render_level))

    def render(self, level: str = "detail") -> str:
        if level == "none":
            return "ScheduleError: (not rendered)"
        if level == "fast":
            return f"ScheduleError: {self.fast or self.problem}"
        if self.func is None:
            return f"ScheduleError: {self.problem}"
        func, loop_name, tag = self.func, self.loop_name, None
        if self.loop is not None and self.block_name is None:
            func, tag = _tag_loop(func, self.loop)
            loop_name = tag or loop_name
        text = mark_line(func_script(func, self.func_name), self.block_name, loop_name)
        if tag is not None:
            text = text.replace(tag, self.loop_name)
        return f"ScheduleError: {self.problem}\nThe IR (the offending part marked):\n{text}"


def _tag_loop(func, loop):
    """``func`` with ``loop``'s variable renamed to a unique tag, so its line can be found
    even when other loops share its name."""
    from ember.ir import Var, replace
    from ember.tir.functor import substitute

    from .analysis import replace_stmts

    tag = f"{loop.loop_var.name}__error_here"
    var = Var(tag, loop.loop_var.dtype)
    try:
        new = replace(loop, loop_var=var, body=substitute(loop.body, {loop.loop_var: var}))
        tagged = replace_stmts(func, {loop: new})
    except Exception:  # noqa: BLE001 - rendering must not fail
        return func, None
    return (tagged, tag) if tagged is not func else (func, None)


class UnknownHandleError(ScheduleError, IndexError):
    """A handle (BlockRV, LoopRV, ExprRV) that this schedule does not know: made by another
    schedule or removed with ``remove_rv`` (an IndexError, as TVM raises)."""


class BufferIndexError(ScheduleError, AssertionError):
    """A ``("read" | "write", index)`` buffer argument out of the block's range (an
    AssertionError too, as TVM's argument normalisation raises)."""
