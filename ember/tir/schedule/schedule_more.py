"""The Schedule methods of the compute-location, reduction, memory, layout, tensorize
and sampling families (a mixin of ``Schedule``; kept apart so each file stays short).

The methods follow ``schedule.py``'s pattern: resolve handles, call the pure primitive
through ``self._apply``, make output handles, record one instruction.
"""

from __future__ import annotations

from .state import BlockRV, ExprRV, LoopRV  # noqa: F401

__all__ = ["MorePrimitives"]


class MorePrimitives:
    """Mixin: needs ``_apply``, ``_block``, ``_loop``, ``_new``, ``_record`` from Schedule."""
