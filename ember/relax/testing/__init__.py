"""``tvm.relax.testing``: helpers TVM's Relax tests import.

- ``vm``: the ``test.vm.*`` packed functions test programs call, and ``check_saved_func``;
- ``nn``: a tiny module API over ``relax.BlockBuilder`` (``Placeholder``, ``Parameter``,
  ``Module``, ``emit``, ``emit_te`` and a few layers).
"""

from . import nn, vm

__all__ = ["nn", "vm"]
