"""``tvm.script.parser.relax.entry``: the classes of Relax's struct-info words.

TVM has one proxy class per word (``TensorProxy``, ``ObjectProxy`` …) for the values of
``R.Tensor``, ``R.Object`` and friends before they become struct info. In ember a
called word gives struct info at once, and a bare word (``R.Object``) is a ``_Word``
whose ``as_struct_info()`` gives it; the proxy names all refer to that class.
"""

from .words import _Word

StructInfoProxy = _Word
TensorProxy = ObjectProxy = CallableProxy = TupleProxy = ShapeProxy = PrimProxy = _Word

__all__ = ["StructInfoProxy", "TensorProxy", "ObjectProxy", "CallableProxy", "TupleProxy", "ShapeProxy",
           "PrimProxy"]
