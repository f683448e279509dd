"""TVMScript for ember: print IR as Python-like text and parse that text back.

``from ember.script import tir as T, ir as I`` gives the script namespaces; ``relax``
(``R``) is provided by the Relax layer under ``ember/script/relax`` and loads only when
asked for.  ``to_script`` prints; ``from_source`` parses text; ``ir_module`` and
``prim_func`` are the decorators.
"""

from __future__ import annotations

import importlib

from .errors import ParserError
from .printer import to_script

__all__ = ["ParserError", "to_script", "from_source", "ir_module", "prim_func", "tir", "ir", "relax"]

_SUBMODULES = {"tir", "ir", "relax", "parser", "printer"}


def __getattr__(name: str):
    if name in _SUBMODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    if name in ("from_source", "ir_module", "prim_func"):
        from . import parser

        value = getattr(parser, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ember.script' has no attribute {name!r}")
