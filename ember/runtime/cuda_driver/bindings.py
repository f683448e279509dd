"""Lazy access to the ``cuda-bindings`` package (``cuda.bindings.driver`` / ``.nvrtc``).

Nothing here is imported until a CUDA feature is used, so ``import ember`` works
without the package.  ``check(result, what)`` turns the ``(error, values...)`` tuples
the bindings return into values or a :class:`CudaError` naming the failed call.
"""

from __future__ import annotations

import functools

from .errors import INSTALL_HINT, CudaError, CudaUnavailableError


@functools.cache
def _load(name: str):
    try:
        module = __import__(f"cuda.bindings.{name}", fromlist=[name])
    except ImportError as err:
        raise CudaUnavailableError(f"the CUDA Python bindings (cuda.bindings.{name}) are missing: "
                                   f"{INSTALL_HINT} ({err})") from None
    return module


def driver():
    """``cuda.bindings.driver``, or CudaUnavailableError saying what to install."""
    return _load("driver")


def nvrtc():
    """``cuda.bindings.nvrtc``, or CudaUnavailableError saying what to install."""
    return _load("nvrtc")


def has_bindings() -> bool:
    try:
        nvrtc()
    except CudaUnavailableError:
        return False
    return True


def _error_name(err) -> str:
    name = getattr(err, "name", None)
    return f"{name} ({int(err)})" if name is not None else str(err)


def check(result, what: str):
    """The values after the status of a cuda-bindings call; raise CudaError if it failed.

    Returns None for calls that return only a status, the value for one, a tuple for more.
    """
    if not isinstance(result, tuple):
        result = (result,)
    err, values = result[0], result[1:]
    if int(err) != 0:
        detail = ""
        if "cu" in what[:2]:
            drv = driver()
            text = drv.cuGetErrorString(err)
            if int(text[0]) == 0 and text[1]:
                detail = f": {text[1].decode(errors='replace')}"
        raise CudaError(f"{what} failed with {_error_name(err)}{detail}")
    if not values:
        return None
    return values[0] if len(values) == 1 else values
