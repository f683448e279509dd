"""Runtime exceptions."""

from __future__ import annotations

from ember.error import TVMError


class ArgumentError(TVMError, ValueError):
    """A compiled function was called with a wrong argument (count, dtype, shape, device ...).
    A ``TVMError`` (so a ``RuntimeError``, as TVM's failed checks) and a ``ValueError``."""


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument has a Python type the parameter cannot accept (e.g. a list for a buffer)."""


# Native checks whose message starts with one of these prefixes are not argument errors:
# the runtime raises the named exception (e.g. a failed heap allocation -> MemoryError).
RUNTIME_ERRORS: dict[str, type[Exception]] = {"MemoryError: ": MemoryError}


def runtime_error_for_check(message: str) -> Exception | None:
    """The exception for a failed native check that is not about an argument, or None."""
    for prefix, kind in RUNTIME_ERRORS.items():
        if message.startswith(prefix):
            return kind(message[len(prefix):])
    return None
