"""``relax.utils``: turning Python values into Relax expressions (``convert_to_expr``), the
``args_converter`` decorators that do it for a function's arguments, and
``copy_with_new_vars`` (a function with fresh Relax and symbolic variables)."""

from __future__ import annotations

import functools
import inspect
import typing

import numpy as np

from ember.ir import FloatImm, IntImm, PrimExpr

from .expr import Expr, PrimValue, StringImm, Tuple

__all__ = ["convert_to_expr", "args_converter", "copy_with_new_vars"]


def convert_to_expr(value) -> Expr:
    """A Relax expression for ``value``: Exprs stay; ints/floats/PrimExprs become
    PrimValues (int64/float64 for Python numbers); strings StringImms; tuples and lists
    Tuples of converted fields; numpy arrays Constants."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, bool):
        return PrimValue(IntImm("bool", int(value)))
    if isinstance(value, int | np.integer):
        return PrimValue(IntImm("int64", int(value)))
    if isinstance(value, float | np.floating):
        return PrimValue(FloatImm("float64", float(value)))
    if isinstance(value, PrimExpr):
        return PrimValue(value)
    if isinstance(value, str):
        return StringImm(value)
    if isinstance(value, list | tuple):
        return Tuple([convert_to_expr(v) for v in value])
    if isinstance(value, np.ndarray):
        from .expr import const

        return const(value)
    from ember.ir import GlobalVar

    if isinstance(value, GlobalVar):
        return value
    raise TypeError(f"convert_to_expr: cannot convert {type(value).__name__} ({value!r}) to a Relax Expr")


def _to_list(name: str, value):
    if value is None:
        return None
    if not isinstance(value, list | tuple):
        raise TypeError(f"args_converter: argument {name!r} must be a list or tuple to convert to List[Expr], "
                        f"got {type(value).__name__} ({value!r})")
    return [convert_to_expr(v) for v in value]


def _to_one(name: str, value):
    return None if value is None else convert_to_expr(value)


def _converting(convert: dict):
    """A decorator factory: ``convert`` maps parameter names to ``fn(name, value)``."""

    def decorate(func):
        sig = inspect.signature(func)
        params = sig.parameters
        unknown = [n for n in convert if n not in params]
        if unknown:
            raise ValueError(f"args_converter: {func.__name__} has no parameters {unknown}")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            bound = sig.bind(*args, **kwargs)
            for name, value in list(bound.arguments.items()):
                fn = convert.get(name)
                if fn is None:
                    continue
                kind = params[name].kind
                if kind == inspect.Parameter.VAR_POSITIONAL:
                    bound.arguments[name] = tuple(fn(name, v) for v in value)
                elif kind == inspect.Parameter.VAR_KEYWORD:
                    bound.arguments[name] = {k: fn(name, v) for k, v in value.items()}
                else:
                    bound.arguments[name] = fn(name, value)
            return func(*bound.args, **bound.kwargs)

        return wrapper

    return decorate


def _strip_optional(annotation):
    if typing.get_origin(annotation) is typing.Union or type(annotation).__name__ == "UnionType":
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(members) == 1 and len(typing.get_args(annotation)) == 2:
            return members[0]
    return annotation


def _converter_for(annotation):
    annotation = _strip_optional(annotation)
    if annotation is Expr:
        return _to_one
    if typing.get_origin(annotation) in (list, typing.List) and typing.get_args(annotation) == (Expr,):  # noqa: UP006
        return _to_list
    return None


class args_converter:  # noqa: N801 - TVM's name
    """Decorators converting a function's Python arguments to Relax exprs: ``to_expr(*names)``
    (each named argument to an Expr, None kept), ``to_list_expr(*names)`` (to a list of Exprs)
    and ``auto`` (from the annotations ``Expr``, ``Optional[Expr]``, ``List[Expr]`` and
    ``Optional[List[Expr]]``; other parameters are left alone)."""

    @staticmethod
    def to_expr(*param_names: str):
        return _converting({n: _to_one for n in param_names})

    @staticmethod
    def to_list_expr(*param_names: str):
        return _converting({n: _to_list for n in param_names})

    @staticmethod
    def auto(func):
        try:
            hints = typing.get_type_hints(func)
        except (NameError, TypeError):
            hints = {k: p.annotation for k, p in inspect.signature(func).parameters.items()}
        convert = {}
        for name in inspect.signature(func).parameters:
            fn = _converter_for(hints.get(name))
            if fn is not None:
                convert[name] = fn
        return _converting(convert)(func)


def copy_with_new_vars(func):
    """A copy of the Relax function ``func`` in which every Relax variable and every symbolic
    (TIR) variable it defines is fresh; structurally equal to ``func``."""
    from .copy_vars import copy_function_with_new_vars

    return copy_function_with_new_vars(func)
