"""``tvm._ffi.base``: the error base class and the string helper TVM code imports from here."""

from __future__ import annotations

from ..error import TVMError, register_error

__all__ = ["TVMError", "py_str", "register_error"]


def py_str(value: bytes | str) -> str:
    """``value`` as a ``str`` (bytes are decoded as UTF-8)."""
    return value.decode("utf-8") if isinstance(value, bytes) else value
