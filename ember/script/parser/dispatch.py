"""Which parser reads a function, keyed by its decorator (``T.prim_func``, later ``R.function``).

A function parser is ``fn(source, fdef, outer, **decorator_kwargs) -> BaseFunc`` where
``outer`` maps names (globals, closure, ``cls``) to values.  The Relax layer registers
its own with ``register_function_parser(R.function, parse_relax_function)``.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["register_function_parser", "function_parser", "check_decorator_keywords"]

_PARSERS: dict = {}


def register_function_parser(decorator, fn: Callable) -> None:
    """Parse functions decorated with ``decorator`` (or ``decorator(...)``) using ``fn``."""
    _PARSERS[decorator] = fn


def function_parser(decorator) -> Callable | None:
    _builtin()
    return _PARSERS.get(decorator)


def check_decorator_keywords(ev, decorator_node, parse: Callable, kwargs: dict) -> None:
    """Unknown decorator keywords (``@T.prim_func(foo=1)``) are reported at the decorator."""
    import inspect

    params = list(inspect.signature(parse).parameters.values())[3:]  # after source, fdef, outer
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    known = [p.name for p in params]
    unknown = [k for k in kwargs if k not in known]
    if unknown:
        raise ev.error(decorator_node, f"unknown decorator keyword argument {unknown[0]!r}; expected one of "
                                       f"{', '.join(known) or 'none'}")


_done = False


def _builtin() -> None:
    global _done
    if _done:
        return
    _done = True
    from ember.script import tir as T

    from .tir_func import parse_prim_func

    register_function_parser(T.prim_func, parse_prim_func)
