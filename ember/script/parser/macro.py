"""``@T.macro``: a Python function whose body is TVMScript, pasted where it is called.

A macro called as a statement inside a ``@T.prim_func`` (``add_one(A, i)``) has its
body parsed at the call, its parameters bound to the call's arguments (``*args``,
keyword-only and ``**kwargs`` parameters included).  Free names of the body resolve
where the macro was defined (``hygienic=True``, the default) or at the call
(``hygienic=False``).  A macro on a method of a class receives ``self`` as usual.
"""

from __future__ import annotations

import ast
import inspect

from .evaluator import Scope
from .source import Source

__all__ = ["TIRMacro", "macro", "expand_macro"]


class TIRMacro:
    """A ``@T.macro`` function: its source, the names it captured, and its hygiene."""

    def __init__(self, func, hygienic: bool, frame) -> None:
        from .entry import _captured, _first

        self.func = func
        self.hygienic = hygienic
        self.source = Source.from_object(func, frame)
        self.fdef = _first(self.source, ast.FunctionDef)
        self.captured = _captured(func, frame)
        self.signature = inspect.signature(func)
        self.__name__ = func.__name__
        self.bound_self = ()

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        bound = object.__new__(TIRMacro)
        bound.__dict__.update(self.__dict__)
        bound.bound_self = (obj,)
        return bound

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"the T.macro {self.__name__!r} can only be called inside a @T.prim_func body")

    def __repr__(self) -> str:
        return f"T.macro({self.__name__})"


def macro(*args, hygienic: bool = True, frame=None):
    """``@T.macro`` or ``@T.macro(hygienic=False)``; ``frame``: where it was applied."""
    if frame is None:
        frame = inspect.currentframe().f_back
    if len(args) == 1 and callable(args[0]) and not isinstance(args[0], bool):
        return TIRMacro(args[0], hygienic, frame)
    if args:
        raise ValueError(f"T.macro takes only the keyword argument hygienic=, got {args!r}")

    def decorate(func):
        return TIRMacro(func, hygienic, frame)

    return decorate


def expand_macro(p, call: ast.Call, mac: TIRMacro):
    """The statements of ``mac``'s body, parsed with its parameters bound to ``call``'s arguments."""
    args, kwargs = p.eval_args(call)
    try:
        bound = mac.signature.bind(*mac.bound_self, *args, **kwargs)
    except TypeError as err:
        raise p.error(call, f"T.macro {mac.__name__}: {err}") from None
    bound.apply_defaults()
    outer = mac.captured if mac.hygienic else {**p.scope.outer, **p.scope.local}
    scope = Scope(outer)
    for name, value in bound.arguments.items():
        scope.define(name, value)
    saved = p.scope, p.source
    p.scope, p.source = scope, mac.source
    try:
        return p.parse_stmts(mac.fdef.body)
    finally:
        p.scope, p.source = saved
