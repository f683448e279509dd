"""``tvm._ffi``: the names TVM users import from TVM's FFI package, as aliases of ember's.

In TVM this package binds Python to the C++ runtime. ember has no C++ runtime, but user code
reaches into it for a few plain Python entry points: the global function registry
(``register_func``, ``get_global_func``), ``register_object`` on node classes, and the error
base class (``tvm._ffi.base.TVMError``). Those are here; the C handles (``_LIB``, type codes)
have no meaning in ember and are left out (see docs/tvm_compat.md).
"""

from . import base, registry, runtime_ctypes
from .base import TVMError
from .registry import (
    get_global_func,
    list_global_func_names,
    register_func,
    register_object,
    remove_global_func,
)

__all__ = [
    "TVMError", "base", "get_global_func", "list_global_func_names", "register_func",
    "register_object", "registry", "remove_global_func", "runtime_ctypes",
]
