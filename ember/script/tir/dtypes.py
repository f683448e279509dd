"""Type-named constructors of TVMScript: ``T.float32(1.0)``, ``T.int32()``, ``T.handle``.

``T.<dtype>(value)`` is a constant (or a cast when ``value`` is an expression),
``T.<dtype>()`` a fresh variable, and the bare function works as a type annotation
(``n: T.int32``, ``x: T.float32 = …``); the parser reads its ``dtype`` attribute.
Vector types (``T.float32x4``) are made on demand by ``dtype_function``.
"""

from __future__ import annotations

from ember.ir import PointerType, PrimExpr, Var, const
from ember.runtime.dtype import DataType
from ember.tir.op import cast

__all__ = ["dtype_function", "handle", "ptr", "var", "Ptr", "SCALAR_DTYPES"]

SCALAR_DTYPES = (
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "bfloat16", "bool",
)

_CACHE: dict[str, object] = {}


def dtype_function(name: str):
    """The ``T.<name>`` constructor for the dtype ``name`` (cached, so identity is stable)."""
    fn = _CACHE.get(name)
    if fn is not None:
        return fn
    dtype = DataType(name)

    def build(value=None, *, name: str = "v", is_size_var: bool = False):
        if value is None:
            if is_size_var:
                from ember.ir.expr import SizeVar

                return SizeVar(name, dtype)
            return Var(name, dtype)
        if isinstance(value, PrimExpr):
            return cast(value, dtype)
        if isinstance(value, str):  # "inf", "-inf", "nan"
            value = float(value)
        return const(value, dtype)

    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"A {name} constant, a cast to {name}, or (no argument) a fresh {name} variable."
    build.dtype = dtype
    _CACHE[name] = build
    return build


def handle(dtype=None, storage_scope: str = "global", *, name: str = "handle") -> Var:
    """A handle variable; with ``dtype`` it points at ``dtype`` data in ``storage_scope``."""
    ann = None if dtype is None else PointerType(DataType(dtype), storage_scope)
    return Var(name, "handle", ann)


handle.dtype = DataType("handle")


def var(dtype="int32", name: str = "v") -> Var:
    """A fresh scalar variable of ``dtype`` (``n = T.var("int64")``)."""
    return Var(name, DataType(dtype))


def ptr(dtype, storage_scope: str = "global", is_size_var: bool = False, *, name: str = "v") -> Var:
    """``T.ptr("float32")``: a handle variable pointing at ``dtype`` data in ``storage_scope``."""
    return Var(name, "handle", PointerType(DataType(dtype), storage_scope))


class _PtrAnnotation:
    """``T.Ptr[T.float32]``: TVM's spelling of the annotation ``T.handle("float32")`` (a
    handle variable pointing at float32 data), for ``p: T.Ptr[T.float32] = T.address_of(…)``."""

    def __getitem__(self, element) -> Var:
        return ptr(getattr(element, "dtype", element))


Ptr = _PtrAnnotation()
