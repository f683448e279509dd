"""ScheduleError: a refused schedule primitive, explained, with the IR location marked.

A primitive that finds its preconditions violated raises ``ScheduleError(problem,
func=..., block=..., loop=...)``; the message is the problem followed by the
function's TVMScript with ``# <--- error here`` on the offending block's or loop's
line (``render_level="detail"``, the default).  ``Schedule(error_render_level=...)``
may ask for ``"fast"`` (problem only) or ``"none"``.
"""

from __future__ import annotations

from .printing import func_script, mark_line

__all__ = ["ScheduleError"]


class ScheduleError(ValueError):
    """A schedule primitive was applied where it is not legal."""

    def __init__(self, problem: str, func=None, block=None, loop=None, func_name: str = "main",
                 render_level: str = "detail"):
        self.problem = problem
        self.func = func
        self.block_name = getattr(block, "name_hint", block)
        loop_var = getattr(loop, "loop_var", loop)
        self.loop_name = getattr(loop_var, "name", None)
        self.func_name = func_name
        super().__init__(self.render(render_level))

    def render(self, level: str = "detail") -> str:
        if level != "detail" or self.func is None:
            return f"ScheduleError: {self.problem}"
        text = mark_line(func_script(self.func, self.func_name), self.block_name, self.loop_name)
        return f"ScheduleError: {self.problem}\nThe IR (the offending part marked):\n{text}"
