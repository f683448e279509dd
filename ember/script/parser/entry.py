"""The user-facing entry points: ``@T.prim_func``, ``@I.ir_module`` and ``from_source``.

Names in a script resolve like Python's: the function's globals, then its closure
and the locals of the frame that applied the decorator (so a ``N = 128`` in an
enclosing test function works).  ``@T.prim_func`` on a method of a class is left for
``@I.ir_module`` to parse with the rest of the class.
"""

from __future__ import annotations

import ast
import inspect

from ember.script.errors import ParserError, reported

from .module import decorator_of, parse_ir_module
from .evaluator import Evaluator, Scope
from .source import Source

__all__ = ["prim_func", "ir_module", "from_source", "DeferredFunction"]


class DeferredFunction:
    """A ``@T.prim_func`` method of a class, parsed when ``@I.ir_module`` reads the class."""

    def __init__(self, func, kwargs: dict):
        self.func, self.kwargs = func, kwargs
        self.__name__ = func.__name__


def _captured(obj, frame) -> dict:
    names: dict = {}
    names.update(getattr(obj, "__globals__", {}) or {})
    if frame is not None:
        names.update(frame.f_locals)
    code = getattr(obj, "__code__", None)
    if code is not None and obj.__closure__:
        for name, cell in zip(code.co_freevars, obj.__closure__):
            try:
                names[name] = cell.cell_contents
            except ValueError:  # an unfilled cell
                pass
    return names


def _is_method(func) -> bool:
    parts = func.__qualname__.split(".")
    return len(parts) >= 2 and parts[-2] != "<locals>"


def _in_ir_module_class(frame) -> bool:
    """Whether ``frame`` runs the body of a class decorated with ``@I.ir_module`` (whose
    parse reads the methods); a method of any other class is parsed at once, as in TVM."""
    import linecache

    if frame is None:
        return True
    code = frame.f_code
    first = code.co_firstlineno
    for lineno in range(first, max(first - 8, 0), -1):  # the decorators sit above `class`
        line = linecache.getline(code.co_filename, lineno).strip()
        if line.startswith("@") and "ir_module" in line:
            return True
        if lineno < first and not line.startswith("@"):
            break
    return not linecache.getline(code.co_filename, first)  # no source to read: keep deferring


def prim_func(func=None, *, private: bool = False, check_well_formed: bool = True, frame=None, **unknown):
    """Parse ``func``'s source as a PrimFunc (``frame``: where the decorator was applied)."""
    from .tir_func import parse_prim_func

    if unknown:
        raise TypeError(f"T.prim_func: unknown keyword argument {next(iter(unknown))!r}; expected one of "
                        "private, check_well_formed")

    if frame is None:
        frame = inspect.currentframe().f_back

    def decorate(f):
        if _is_method(f) and _in_ir_module_class(frame):
            return DeferredFunction(f, {"private": private})
        with reported():
            source = Source.from_object(f)
            fdef = _first(source, ast.FunctionDef)
            return parse_prim_func(source, fdef, _captured(f, frame), private=private,
                                   check_well_formed=check_well_formed)

    return decorate if func is None else decorate(func)


def ir_module(cls=None, *, check_well_formed: bool = True, frame=None):
    """Parse a class's source as an IRModule."""
    if frame is None:
        frame = inspect.currentframe().f_back

    def decorate(c):
        with reported():
            source = Source.from_object(c, frame)
            cdef = _first(source, ast.ClassDef)
            names: dict = {}
            if frame is not None:
                names.update(frame.f_globals)
                names.update(frame.f_locals)
            return parse_ir_module(source, cdef, names, check_well_formed=check_well_formed)

    return decorate if cls is None else decorate(cls)


def _first(source: Source, kind):
    for node in source.tree.body:
        if isinstance(node, kind):
            return node
    raise ParserError(f"expected a {kind.__name__} in the source", source.filename)


def from_source(text: str, namespace: dict | None = None, filename: str = "<script>", *,
                check_well_formed: bool = True):
    """Parse TVMScript text: a ``@T.prim_func`` function or an ``@I.ir_module`` class.

    ``check_well_formed=False`` skips the well-formedness check of what was parsed
    (its decorators' own ``check_well_formed=`` still apply).
    """
    with reported():
        return _parse_source(text, namespace, filename, check_well_formed)


def _parse_source(text: str, namespace, filename: str, check_well_formed: bool):
    import ember
    from ember.script import ir as I
    from ember.script import tir as T

    names = {"T": T, "I": I, "ember": ember, "tvm": ember}
    if "R." in text:  # Relax functions: TVM's from_source knows R without being told
        from ember.script import relax as R

        names["R"] = R
    names.update(namespace or {})
    source = Source(text, filename)
    ev = Evaluator(source, Scope(names))
    for node in source.tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            exec(compile(ast.Module([node], []), filename, "exec"), names)  # noqa: S102
        elif isinstance(node, ast.ClassDef):
            return parse_ir_module(source, node, names, check_well_formed=check_well_formed)
        elif isinstance(node, ast.FunctionDef):
            decorator, kwargs = decorator_of(ev, node)
            from .dispatch import check_decorator_keywords, function_parser

            parse = function_parser(decorator)
            if parse is None:
                raise ev.error(node.decorator_list[0], f"unknown function decorator {decorator!r}")
            check_decorator_keywords(ev, node.decorator_list[0], parse, kwargs)
            if not check_well_formed and "check_well_formed" in inspect.signature(parse).parameters:
                kwargs["check_well_formed"] = False
            return parse(source, node, names, **kwargs)
        elif isinstance(node, ast.Assign):
            exec(compile(ast.Module([node], []), filename, "exec"), names)  # noqa: S102
    raise ParserError("the source defines no @T.prim_func function or @I.ir_module class", filename)
