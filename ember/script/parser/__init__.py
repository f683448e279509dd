"""The TVMScript parser: Python source → IR, by walking the ``ast`` of the decorated code."""

from .dispatch import function_parser, register_function_parser
from .entry import from_source, ir_module, prim_func

__all__ = ["from_source", "ir_module", "prim_func", "register_function_parser", "function_parser"]
