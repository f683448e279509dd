"""Runtime exceptions."""

from __future__ import annotations


class ArgumentError(ValueError):
    """A compiled function was called with a wrong argument (count, dtype, shape, device ...)."""


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument has a Python type the parameter cannot accept (e.g. a list for a buffer)."""
