"""The global function registry: named Python callables shared across ember.

``register_func("my.name")`` decorates, ``register_func(f)`` uses ``f.__name__``,
``register_func("x", f)`` registers directly.  Relax's ``call_dps_packed``/``extern``
and ``time_evaluator``'s ``f_preproc`` look functions up here by name.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

_functions: dict[str, Callable] = {}


def register_func(func_name: str | Callable | None = None, f: Callable | None = None, override: bool = False):
    """Register ``f`` under ``func_name``; without ``f``, return a decorator."""
    if callable(func_name) and f is None:
        f, func_name = func_name, func_name.__name__
    if func_name is not None and not isinstance(func_name, str):
        raise TypeError(f"register_func: func_name must be a str, got {type(func_name).__name__}")

    def register(func: Callable) -> Callable:
        if not callable(func):
            raise TypeError(f"register_func: expected a callable, got {type(func).__name__}")
        name = func_name if func_name is not None else func.__name__
        if name in _functions and not override:
            raise ValueError(
                f"register_func: global function {name!r} is already registered; pass override=True to replace it"
            )
        _functions[name] = func
        return func

    return register if f is None else register(f)


def get_global_func(name: str, allow_missing: bool = False) -> Callable | None:
    """The function registered under ``name``; None if missing and ``allow_missing``."""
    found = _functions.get(name)
    if found is None and not allow_missing:
        close = difflib.get_close_matches(name, _functions, n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(f"get_global_func: no global function named {name!r}{hint}")
    return found


def list_global_func_names() -> list[str]:
    """Names of all registered functions, sorted."""
    return sorted(_functions)


def remove_global_func(name: str) -> None:
    """Unregister ``name``; raises ValueError if it is not registered."""
    if _functions.pop(name, None) is None:
        raise ValueError(f"remove_global_func: no global function named {name!r}")
