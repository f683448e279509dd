"""``tvm._ffi.registry``: the global function registry and ``register_object``.

The functions are ember's runtime registry itself, so a function registered through
``tvm._ffi.register_func`` is the one ``tvm.get_global_func`` returns.
"""

from __future__ import annotations

from collections.abc import Callable

from ..runtime.registry import (
    get_global_func,
    list_global_func_names,
    register_func,
    remove_global_func,
)

__all__ = [
    "get_global_func", "list_global_func_names", "object_types", "register_func",
    "register_object", "remove_global_func",
]

# type key -> the Python class registered for it
object_types: dict[str, type] = {}


def register_object(type_key: str | type | None = None) -> Callable[[type], type] | type:
    """Record a class under a type key and return it unchanged.

    In TVM this ties a Python class to a C++ node type. ember's nodes are Python classes
    already, so there is nothing to tie; the key is kept so that ``object_types`` can name
    the class. Used bare (``@register_object``) the key is the class name.
    """

    def register(cls: type, key: str | None = None) -> type:
        if not isinstance(cls, type):
            raise TypeError(f"register_object: expected a class, got {type(cls).__name__}")
        object_types[key or cls.__name__] = cls
        return cls

    if isinstance(type_key, type):
        return register(type_key)
    if type_key is not None and not isinstance(type_key, str):
        raise TypeError(f"register_object: type_key must be a str, got {type(type_key).__name__}")
    return lambda cls: register(cls, type_key)
