"""``tvm.script.parser.relax.entry``: the classes of Relax's struct-info words.

TVM has one proxy class per word (``TensorProxy``, ``ObjectProxy`` …) for the values of
``R.Tensor``, ``R.Object`` and friends before they become struct info. In ember a called
word gives struct info at once and a bare word (``R.Object``) is a ``_Word``; these classes
exist for code that names them: an instance (``TensorProxy((4,), "float32")``) or the class
itself, where struct info is expected (``R.match_cast(x, TensorProxy)``), stands for the
struct info of its word.
"""

from . import words


class StructInfoProxy:
    """Base of the proxies: ``word`` is the struct-info word a proxy class stands for."""

    word = None

    def __init__(self, *args, **kwargs):
        self.struct_info = self.word(*args, **kwargs)

    def as_struct_info(self, dict_globals=None):
        return self.struct_info


class TensorProxy(StructInfoProxy):
    word = words.Tensor


class ObjectProxy(StructInfoProxy):
    word = words.Object


class CallableProxy(StructInfoProxy):
    word = words.Callable


class TupleProxy(StructInfoProxy):
    word = words.Tuple


class ShapeProxy(StructInfoProxy):
    word = words.Shape


class PrimProxy(StructInfoProxy):
    word = words.Prim


__all__ = ["StructInfoProxy", "TensorProxy", "ObjectProxy", "CallableProxy", "TupleProxy", "ShapeProxy",
           "PrimProxy"]
