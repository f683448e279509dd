"""The AST node classes TVMScript is parsed from. TVM mirrors Python's ``ast`` in a module
of its own; ember parses Python's ``ast`` directly, so these are its classes."""

from ast import *  # noqa: F403 - Module, FunctionDef, Assign, With, Name, ...
from ast import AST

__all__ = ["AST"] + [name for name in dir() if name[:1].isupper() and name != "AST"]
