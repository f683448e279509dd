"""``from ember.script import ir as I``: ``@I.ir_module`` and module-level words."""

from __future__ import annotations

import inspect

from ember.ir import GlobalVar

__all__ = ["ir_module", "module_attrs", "GlobalVar", "Range"]


def ir_module(cls=None, *, check_well_formed: bool = True):
    """Parse the decorated class (one method per function) as an IRModule."""
    from ember.script.parser.entry import ir_module as _parse

    frame = inspect.currentframe().f_back
    return _parse(cls, check_well_formed=check_well_formed, frame=frame)


def module_attrs(attrs: dict):
    """``I.module_attrs({...})`` at the top of an ``@I.ir_module`` class body.

    Python runs the class body before the decorator parses it, so this does nothing
    when called; the parser reads the attributes from the source."""
    if not isinstance(attrs, dict):
        raise TypeError(f"I.module_attrs expects a dict, got {type(attrs).__name__}")


def Range(begin, end=None):  # noqa: N802 - TVM's name
    """``I.Range(begin, end)``: the range ``[begin, end)`` (``I.Range(n)`` is ``[0, n)``), as
    printed for a Range on its own."""
    from ember.script.tir.exprs import Range_

    return Range_(begin, end)
