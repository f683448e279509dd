"""The TVMScript parser: Python source → IR, by walking the ``ast`` of the decorated code."""

from .dispatch import function_parser, register_function_parser
from .entry import from_source, ir_module, prim_func

__all__ = ["from_source", "ir_module", "prim_func", "register_function_parser", "function_parser"]


def __getattr__(name: str):
    """TVM's ``from tvm.script.parser import tir as T`` (and ``ir``, ``relax``): the same
    word modules as ``ember.script.tir`` / ``ir`` / ``relax``."""
    if name in ("tir", "ir", "relax"):
        import importlib

        return importlib.import_module(f"ember.script.{name}")
    raise AttributeError(f"module 'ember.script.parser' has no attribute {name!r}")
