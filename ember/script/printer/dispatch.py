"""``to_script``: the one entry point of printing, dispatching on the node's class.

Each IR layer registers a printer for its node classes with ``register_printer``; a
printer is ``fn(node, config) -> str``.  Function printers (PrimFunc, and later Relax
functions) are also used by the IRModule printer, which passes the function's name
and the module's function names in ``config``.  ``namespaces`` says which
``# from ember.script import …`` lines a top-level print of that node needs.

The package in those lines is the name under which the user imports ember: ``tvm`` when
``sys.modules["tvm"]`` is ember itself (TVM code run through an alias, so the printed text
reads as the user's own scripts do), ``ember`` otherwise.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable

__all__ = ["PrintConfig", "register_printer", "find_printer", "to_script", "header", "package_name"]

_NAMESPACE_ALIASES = {"ir": "I", "relax": "R", "tir": "T"}


def package_name() -> str:
    """``tvm`` when ember is imported as ``tvm`` (an alias module), else ``ember``."""
    ember = sys.modules.get("ember")
    return "tvm" if ember is not None and sys.modules.get("tvm") is ember else "ember"


@dataclasses.dataclass(frozen=True)
class PrintConfig:
    """What a printer needs besides the node: its name in a module, the module's functions."""

    name: str | None = None
    in_module: bool = False
    module_funcs: frozenset = frozenset()
    options: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class _Entry:
    fn: Callable
    namespaces: tuple  # header lines a top-level print needs; () for fragments


_PRINTERS: dict[type, _Entry] = {}


def register_printer(node_class: type, fn: Callable, namespaces: tuple = ()) -> None:
    """Print instances of ``node_class`` (and subclasses) with ``fn(node, config)``."""
    _PRINTERS[node_class] = _Entry(fn, tuple(namespaces))


def find_printer(node) -> _Entry | None:
    _ensure_registered()
    for klass in type(node).__mro__:
        entry = _PRINTERS.get(klass)
        if entry is not None:
            return entry
    return None


def header(namespaces) -> str:
    """The commented import lines for ``namespaces``, then a blank line."""
    wanted = set(namespaces)
    package = package_name()
    lines = [f"# from {package}.script import {key} as {alias}"
             for key, alias in sorted(_NAMESPACE_ALIASES.items()) if key in wanted]
    return "\n".join(lines) + "\n\n" if lines else ""


def to_script(node, **kwargs) -> str:
    """TVMScript text of ``node``.  Options TVM accepts (``syntax_sugar``, ``show_meta`` …)
    are accepted and ignored; ``name=`` overrides a function's printed name."""
    _check_prefixes(kwargs)
    entry = find_printer(node)
    if entry is None:
        return repr(node) if not hasattr(node, "__slots__") else f"{type(node).__name__}(...)"
    from .marks import collect_marks, finish

    marks = collect_marks(node, kwargs) if any(kwargs.get(k) for k in _MARK_OPTIONS) else None
    options = dict(kwargs, _marks=marks) if marks else kwargs
    config = PrintConfig(name=kwargs.get("name"), options=options)
    text = mark_whole(node, entry.fn(node, config), marks)
    namespaces = set(entry.namespaces)
    if namespaces:  # a module needs its functions' namespaces too (R for Relax functions)
        for func in getattr(node, "functions", {}).values():
            inner = find_printer(func)
            namespaces.update(inner.namespaces if inner is not None else ())
    text = header(namespaces) + text if namespaces else text
    return finish(text) if marks else text


_PREFIXES = {"ir_prefix": "I", "tir_prefix": "T", "relax_prefix": "R"}


def _check_prefixes(options: dict) -> None:
    """TVM's ``ir_prefix`` / ``tir_prefix`` / ``relax_prefix``: ember prints the standard ones."""
    from ember.error import TVMError

    for key, default in _PREFIXES.items():
        prefix = options.get(key)
        if prefix is None or prefix == default:
            continue
        if not isinstance(prefix, str) or not prefix.isidentifier():
            raise TVMError(f"{key}={prefix!r} is not a valid Python identifier")
        raise TVMError(f"{key}={prefix!r}: ember prints TVMScript with the prefix {default!r} only")


_MARK_OPTIONS = ("path_to_underline", "obj_to_underline", "path_to_annotate", "obj_to_annotate")


def mark_whole(node, text: str, marks) -> str:
    """``text`` with every line marked when ``node`` itself is to be underlined."""
    if not marks or id(node) not in marks.underline:
        return text
    from .marks import wrap_lines

    lines = text.split("\n")
    wrap_lines(lines, 0)
    return "\n".join(lines)


_registered = False


def _ensure_registered() -> None:
    """Register the built-in printers on first use (they import the IR, a lower layer)."""
    global _registered
    if _registered:
        return
    _registered = True
    from ember.ir import IRModule, Node
    from ember.tir.function import PrimFunc

    from .ir_module import print_ir_module
    from .tir_func import print_prim_func, print_tir_fragment

    register_printer(Node, print_tir_fragment)
    register_printer(PrimFunc, print_prim_func, ("tir",))
    register_printer(IRModule, print_ir_module, ("ir", "tir"))
